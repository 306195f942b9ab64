-- The shift per feature of an update's Gaussian sums, from what the model has learned:
-- each feature's (unweighted) mean over every class. One small read of the statistics
-- instead of a look at the batch's first rows (zero where no finite mean is known).
SELECT
    feature,
    coalesce(CASE WHEN {{ sql.is_finite('sum(n * n_mean) / sum(n)') }}
                  THEN sum(n * n_mean) / sum(n) END, 0)
FROM {{ t.feature_stats }}
WHERE n > 0
GROUP BY feature
