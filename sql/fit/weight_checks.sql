-- Sample weights of the labelled rows, against scikit-learn's rules: how many are NULL,
-- NaN, infinite, negative or non-zero (the engine's is_number: see sql/dialects/).
SELECT
    count(*) FILTER (WHERE w IS NULL),
    count(*) FILTER (WHERE NOT ({{ sql.is_number('w') }})),
    count(*) FILTER (WHERE {{ sql.is_infinite('w') }}),
    count(*) FILTER (WHERE w < 0),
    count(*) FILTER (WHERE w <> 0),
    count(*)
FROM (
    SELECT CAST({{ weight }} AS DOUBLE) AS w
    FROM {{ source }}
    WHERE {{ target }} IS NOT NULL
)
