-- After subtracting a batch: statistics that went below zero mean the batch asked to
-- forget rows the model never learned (an unknown class, category or feature value,
-- or more rows or weight than were fitted). One row per problem. A term model's
-- per-term n mixes documents and occurrences (see text/term_stats.sql): only its amount
-- is checked (`terms`).
SELECT {{ sql.as_text('class') }} AS class, NULL AS feature, n, weight AS amount
FROM {{ t.class_stats }}
WHERE n < 0 OR weight < 0
UNION ALL
SELECT {{ sql.as_text('class') }}, feature, n, {{ amount }}
FROM {{ t.feature_stats }}
WHERE {% if not terms | default(false) %}n < 0 OR {% endif %}{{ amount }} < 0
ORDER BY 1, 2
LIMIT 5
