-- Fold the batch's statistics into the model's tables: an upsert keyed by class (and
-- feature, category), adding counts and combining moments pairwise. With sign = -1
-- (forget) the batch is taken out again by the same update run backwards.
INSERT INTO "tiny_class_stats" (class, n, weight)
SELECT class, n, weight
FROM "__sqlnb_batch_tiny";

INSERT INTO "tiny_feature_stats" (class, feature, n, weight, mean, m2, n_mean, n_m2)
SELECT
    class,
    feature,
    n,
    weight,
    mean,
    m2,
    n_mean,
    n_m2
FROM (
WITH unpivoted AS (
    SELECT
        class,
        unnest(['x0', 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8', 'x9', 'x10', 'x11', 'x12', 'x13', 'x14', 'x15', 'x16', 'x17', 'x18', 'x19']) AS feature,
        unnest([c0_shift, c1_shift, c2_shift, c3_shift, c4_shift, c5_shift, c6_shift, c7_shift, c8_shift, c9_shift, c10_shift, c11_shift, c12_shift, c13_shift, c14_shift, c15_shift, c16_shift, c17_shift, c18_shift, c19_shift]) AS shift,
        unnest([3.0158761259052937e0, 3.0294769042382015e0, 2.9985681916126583e0, 2.9735291654540394e0, 3.038181807938575e0, 3.018122299740536e0, 2.9474335582578477e0, 3.014513771501846e0, 3.074951189832395e0, 3.001989723587231e0, 2.974567588815398e0, 3.0058057748060594e0, 2.993676808462699e0, 2.9796668589123567e0, 3.036555013543785e0, 2.9764472330728204e0, 2.970344816885799e0, 2.9990145029253483e0, 3.013066386845528e0, 3.037741208436941e0]) AS origin,
        unnest([c0_n, c1_n, c2_n, c3_n, c4_n, c5_n, c6_n, c7_n, c8_n, c9_n, c10_n, c11_n, c12_n, c13_n, c14_n, c15_n, c16_n, c17_n, c18_n, c19_n]) AS n,
        unnest([c0_s1, c1_s1, c2_s1, c3_s1, c4_s1, c5_s1, c6_s1, c7_s1, c8_s1, c9_s1, c10_s1, c11_s1, c12_s1, c13_s1, c14_s1, c15_s1, c16_s1, c17_s1, c18_s1, c19_s1]) AS s1,
        unnest([c0_s2, c1_s2, c2_s2, c3_s2, c4_s2, c5_s2, c6_s2, c7_s2, c8_s2, c9_s2, c10_s2, c11_s2, c12_s2, c13_s2, c14_s2, c15_s2, c16_s2, c17_s2, c18_s2, c19_s2]) AS s2
    FROM "__sqlnb_batch_tiny"
)
SELECT
    class,
    feature,
    n,
    CAST(n AS DOUBLE) AS weight,
    -- the batch's own moments, from sums taken around the shift (a rescanned class whose
    -- values are all equal: that value, and m2 = 0 exactly)
    CASE WHEN CAST(n AS DOUBLE) = 0 THEN 0 ELSE shift + s1 / CAST(n AS DOUBLE) END AS mean,
    CASE WHEN CAST(n AS DOUBLE) = 0 THEN 0 ELSE greatest(s2 - s1 * s1 / CAST(n AS DOUBLE), 0) END AS m2,
    -- relative to the origin: shift - origin is exact when both are close
    CASE WHEN n = 0 THEN 0 ELSE (shift - origin) + s1 / n END AS n_mean,
    CASE WHEN n = 0 THEN 0 ELSE greatest(s2 - s1 * s1 / n, 0) END AS n_m2
FROM unpivoted

) AS moments;


