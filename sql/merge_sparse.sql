-- Fold a sparse batch into the model: class totals, then every class x feature cell
-- (features with no entry in the batch add zero).
INSERT INTO {{ t.class_stats }} (class, n, weight)
SELECT class, n, weight FROM {{ t.batch }} WHERE feature IS NULL
ON CONFLICT (class) DO UPDATE SET
    n = {{ t.class_stats }}.n + excluded.n,
    weight = {{ t.class_stats }}.weight + excluded.weight;

INSERT INTO {{ t.feature_stats }} (class, feature, n, count)
SELECT c.class, f.feature, coalesce(b.n, 0), coalesce(b.weight, 0)
FROM (SELECT class FROM {{ t.batch }} WHERE feature IS NULL) AS c
CROSS JOIN {{ t.features }} AS f
LEFT JOIN {{ t.batch }} AS b ON b.class = c.class AND b.feature = f.feature
ON CONFLICT (class, feature) DO UPDATE SET
    n = {{ t.feature_stats }}.n + excluded.n,
    count = {{ t.feature_stats }}.count + excluded.count;
