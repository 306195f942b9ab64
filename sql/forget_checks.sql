-- After subtracting a batch: statistics that went below zero mean the batch asked to
-- forget rows the model never learned (an unknown class, category or feature value,
-- or more rows or weight than were fitted). One row per problem.
SELECT {{ sql.as_text('class') }} AS class, NULL AS feature, n, weight AS amount
FROM {{ t.class_stats }}
WHERE n < 0 OR weight < 0
UNION ALL
SELECT {{ sql.as_text('class') }}, feature, n, {{ amount }}
FROM {{ t.feature_stats }}
WHERE n < 0 OR {{ amount }} < 0
ORDER BY 1, 2
LIMIT 5
