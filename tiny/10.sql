-- One look at a batch table just written (instead of one query each): its features whose
-- raw sums are not finite (kind 'nan': NaN in the column, the batch is run again with NaN
-- treated as missing), its number of rows and the labelled rows they count ('size', to be
-- added up), the features whose Gaussian sums cancelled around their shift
-- ('cancelling': rescanned) and the problems that stop it from touching the model
-- ('problem'). Each part is the query of its own template.
SELECT 'nan' AS kind, feature, CAST(NULL AS VARCHAR) AS problem
FROM (
-- Features whose raw batch sums are not finite: a NaN (or an infinity) is in the column,
-- so the batch is computed again with NaN treated as missing. A feature comes once per
-- class whose sum it is (no DISTINCT: on Spark that is one more shuffle and job); the
-- caller takes the set.
SELECT feature
FROM (
    SELECT
        unnest(['x0', 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8', 'x9', 'x10', 'x11', 'x12', 'x13', 'x14', 'x15', 'x16', 'x17', 'x18', 'x19']) AS feature,
        unnest([c0_s1, c1_s1, c2_s1, c3_s1, c4_s1, c5_s1, c6_s1, c7_s1, c8_s1, c9_s1, c10_s1, c11_s1, c12_s1, c13_s1, c14_s1, c15_s1, c16_s1, c17_s1, c18_s1, c19_s1]) AS total
    FROM "__sqlnb_batch_tiny"
)
WHERE NOT isfinite(total)

) AS nan_features
UNION ALL
SELECT 'size', '1', CAST(n AS VARCHAR) FROM "__sqlnb_batch_tiny"
UNION ALL
SELECT 'cancelling', feature, NULL
FROM (
-- Features whose batch sums cancelled too much around their shift (a rescan fixes them).
-- Features whose batch sums lose more than one digit to cancellation in some class
-- (m2 = S2 - S1^2 / W below S2 / 10: the shift is more than three spreads from the
-- class's mean), so no variance keeps an error above a few dozen roundings (scikit-learn's
-- two passes do no better). Sums that are exactly zero lost nothing. A feature comes once
-- per class where it cancels (the caller takes the set).
SELECT feature
FROM (
    SELECT
        unnest(['x0', 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8', 'x9', 'x10', 'x11', 'x12', 'x13', 'x14', 'x15', 'x16', 'x17', 'x18', 'x19']) AS feature,
        unnest([CAST(c0_n AS DOUBLE), CAST(c1_n AS DOUBLE), CAST(c2_n AS DOUBLE), CAST(c3_n AS DOUBLE), CAST(c4_n AS DOUBLE), CAST(c5_n AS DOUBLE), CAST(c6_n AS DOUBLE), CAST(c7_n AS DOUBLE), CAST(c8_n AS DOUBLE), CAST(c9_n AS DOUBLE), CAST(c10_n AS DOUBLE), CAST(c11_n AS DOUBLE), CAST(c12_n AS DOUBLE), CAST(c13_n AS DOUBLE), CAST(c14_n AS DOUBLE), CAST(c15_n AS DOUBLE), CAST(c16_n AS DOUBLE), CAST(c17_n AS DOUBLE), CAST(c18_n AS DOUBLE), CAST(c19_n AS DOUBLE)]) AS w,
        unnest([c0_s1, c1_s1, c2_s1, c3_s1, c4_s1, c5_s1, c6_s1, c7_s1, c8_s1, c9_s1, c10_s1, c11_s1, c12_s1, c13_s1, c14_s1, c15_s1, c16_s1, c17_s1, c18_s1, c19_s1]) AS s1,
        unnest([c0_s2, c1_s2, c2_s2, c3_s2, c4_s2, c5_s2, c6_s2, c7_s2, c8_s2, c9_s2, c10_s2, c11_s2, c12_s2, c13_s2, c14_s2, c15_s2, c16_s2, c17_s2, c18_s2, c19_s2]) AS s2
    FROM "__sqlnb_batch_tiny"
)
WHERE (w > 0 AND s2 > 0 AND s2 - s1 * s1 / w < 1e-1 * s2)


) AS cancelling_features
