-- Sample weights of the labelled rows, against scikit-learn's rules: how many are NULL,
-- NaN, infinite, negative or non-zero (isfinite/isinf rather than isnan: see common.sql).
SELECT
    count(*) FILTER (WHERE w IS NULL),
    count(*) FILTER (WHERE NOT (isfinite(w) OR isinf(w))),
    count(*) FILTER (WHERE isinf(w)),
    count(*) FILTER (WHERE w < 0),
    count(*) FILTER (WHERE w <> 0),
    count(*)
FROM (
    SELECT CAST({{ weight }} AS DOUBLE) AS w
    FROM {{ source }}
    WHERE {{ target }} IS NOT NULL
)
