-- Term models merged into model {{ model | comment }}: their statistics added up as one batch
-- (in the shape of fit/batch_sparse.sql: class totals with feature NULL, then per class and
-- feature), read before the model's own tables are replaced (it may be one of them).
{{ sql.temp_table(t.batch) }}
SELECT class, CAST(NULL AS {{ sql.type('VARCHAR') }}) AS feature, CAST(sum(n) AS BIGINT) AS n, sum(weight) AS weight,
       CAST(NULL AS DOUBLE) AS min_value
FROM (
{% for s in sources %}
    SELECT class, n, weight FROM {{ s.class_stats }}{{ " UNION ALL" if not loop.last }}
{% endfor %}
)
GROUP BY class
UNION ALL
SELECT class, feature, CAST(sum(n) AS BIGINT), sum(count), 0.0
FROM (
{% for s in sources %}
    SELECT class, feature, n, count FROM {{ s.feature_stats }}{{ " UNION ALL" if not loop.last }}
{% endfor %}
)
GROUP BY class, feature;
{% if vocabularies %}

-- the vocabulary: each term's documents and occurrences added up (idf is the same in
-- every vocabulary listed here)
{{ sql.temp_table(t.terms) }}
SELECT term, sum(df) AS df, sum(count) AS count, min(idf) AS idf
FROM (
{% for s in vocabularies %}
    SELECT term, df, count, idf FROM {{ s.vocabulary }}{{ " UNION ALL" if not loop.last }}
{% endfor %}
)
GROUP BY term;
{% endif %}
