-- Derived parameters of model tiny, as views over its statistics tables,
-- so they always agree with the statistics.
CREATE OR REPLACE VIEW "tiny_class_params" AS
SELECT
    class,
    CAST(row_number() OVER (ORDER BY class) - 1 AS INTEGER) AS class_index,
    n,
    weight,
    -- empirical prior: the class's share of the total sample weight
    CASE WHEN (weight) = 0 THEN CAST('-inf' AS DOUBLE) ELSE ln(weight) END - ln(sum(weight) OVER ()) AS log_prior
FROM "tiny_class_stats";

CREATE OR REPLACE VIEW "tiny_feature_params" AS
WITH per_feature AS (
    SELECT
        feature,
        sum(n) AS total_n,
        CASE WHEN sum(n) > 0 THEN sum(n * n_mean) / sum(n) ELSE 0 END AS overall_mean,
        sum(weight) AS pooled_weight,
        CASE WHEN sum(weight) > 0 THEN sum(weight * mean) / sum(weight) ELSE 0 END AS pooled_mean,
        -- the scoring macros' shift (the mean of the class means): x - shift keeps its digits
        coalesce(avg(mean) FILTER (WHERE n > 0), 0) AS shift
    FROM "tiny_feature_stats"
    GROUP BY feature
), pooled AS (
    -- unweighted variance of each feature over all rows (scikit-learn's var(X, axis=0)),
    -- and the weighted one pooled over the classes
    SELECT
        s.feature,
        any_value(o.pooled_mean) AS pooled_mean,
        CASE WHEN any_value(o.total_n) > 0 THEN (sum(s.n_m2) + sum(s.n * (s.n_mean - o.overall_mean) * (s.n_mean - o.overall_mean))) / any_value(o.total_n) ELSE 0 END AS variance,
        CASE WHEN any_value(o.pooled_weight) > 0 THEN (sum(s.m2) + sum(s.weight * (s.mean - o.pooled_mean) * (s.mean - o.pooled_mean))) / any_value(o.pooled_weight) ELSE 0 END AS pooled_spread
    FROM "tiny_feature_stats" AS s
    JOIN per_feature AS o USING (feature)
    GROUP BY s.feature
), s AS (
    SELECT
        s.*,
        CASE WHEN s.n = 0 AND c.n > 0 THEN v.pooled_mean ELSE s.mean END AS theta,
        CASE WHEN s.n = 0 AND c.n > 0 THEN v.pooled_spread
             WHEN s.weight = 0 THEN 0 ELSE s.m2 / s.weight END AS spread,
        v.variance
    FROM "tiny_feature_stats" AS s
    JOIN "tiny_class_stats" AS c USING (class)
    JOIN pooled AS v USING (feature)
), smoothing AS (
    SELECT 1e-09 * max(variance) AS epsilon
    FROM pooled
)
SELECT
    s.class,
    s.feature,
    s.theta,
    CASE WHEN s.spread + smoothing.epsilon = 0 AND s.variance = 0 THEN 1.0 ELSE s.spread + smoothing.epsilon END AS var,
    smoothing.epsilon
FROM s
CROSS JOIN smoothing;

