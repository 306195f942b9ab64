-- Problems in the merged statistics (NaN or infinite moments, …), one row each.
-- (a fit whose sums are not finite asks the source why when it scans it; a merge or an
-- import is told this)
SELECT feature, 'has infinite values or values too large to add up (its mean is not finite)' AS problem
FROM "loop_feature_stats"
WHERE NOT isfinite(mean)
UNION ALL
SELECT feature, 'has values too large to square in double precision (its variance is not finite): rescale the column, e.g. divide it by a power of ten' AS problem
FROM "loop_feature_stats"
WHERE isfinite(mean) AND NOT (isfinite(m2) AND isfinite(n_m2))
UNION ALL
-- var_smoothing = 0 and a class without spread in a feature that varies: a point mass,
-- whose density is infinite at its mean and zero elsewhere
SELECT feature, 'has no spread in class ' || CAST(class AS VARCHAR) || ' and var_smoothing is 0: set var_smoothing > 0' AS problem
FROM "loop_feature_params"
WHERE NOT var > 0

