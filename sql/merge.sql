-- Fold the batch's statistics into the model's tables: an upsert keyed by class (and
-- feature, category), adding counts and combining moments pairwise.
{% import family_template as family %}
INSERT INTO {{ t.class_stats }} (class, n, weight)
SELECT class, n, weight
FROM {{ t.batch }}
{% if family_long_batch %}
WHERE feature IS NULL
{% endif %}
ON CONFLICT (class) DO UPDATE SET
    n = {{ t.class_stats }}.n + excluded.n,
    weight = {{ t.class_stats }}.weight + excluded.weight;

{{ family.merge(t, features, weighted) }}
