-- The shift per feature of an update's Gaussian sums, from what the model has learned:
-- each feature's (unweighted) mean over every class, relative to the feature's origin (zero
-- where no finite mean is known). One small read of the statistics instead of a look at
-- the batch's first rows. Also per feature whether some class's mean lies more than two
-- spreads from it (its sums would lose most of a digit): the batch's sums of that feature
-- are then taken around each class's learned mean (families/gaussian.sql's
-- stored_shifts), so well-separated classes need no rescan.
WITH overall AS (
    SELECT feature, sum(n * n_mean) / sum(n) AS mean
    FROM {{ t.feature_stats }}
    WHERE n > 0
    GROUP BY feature
)
SELECT
    o.feature,
    coalesce(CASE WHEN {{ sql.is_finite('o.mean') }} THEN o.mean END, 0),
    max(CASE WHEN (s.n_mean - o.mean) * (s.n_mean - o.mean) * s.n > 4 * s.n_m2 THEN 1 ELSE 0 END)
FROM overall AS o
JOIN {{ t.feature_stats }} AS s ON s.feature = o.feature AND s.n > 0
GROUP BY o.feature, o.mean
