-- One pass over sparse (long) input: entries (row, feature, value) joined to the rows'
-- labels. Class totals come out with feature NULL; absent entries are zeros. Entries name
-- their feature by index into the model's features (by_name false) or by the feature
-- itself (by_name true); the labels may sit on every entry (distinct_rows true).
{% from 'families/counts.sql' import value %}
{{ sql.temp_table(t.batch) }}
WITH labelled AS (
    SELECT {% if distinct_rows %}DISTINCT {% endif %}
        {{ row }} AS row_id,
        {{ target }} AS class,
        {% if weight %}CAST({{ weight }} AS DOUBLE){% else %}1.0{% endif %} AS weight
    FROM {{ rows }}
    WHERE {{ target }} IS NOT NULL
)
SELECT class, CAST(NULL AS {{ sql.type('VARCHAR') }}) AS feature, count(*) AS n, sum(weight) AS weight,
       CAST(NULL AS DOUBLE) AS min_value
FROM labelled
GROUP BY class
UNION ALL
SELECT l.class, f.feature, count(*) AS n, sum(l.weight * {{ value({'column': 'e.' ~ value_column}, binarize) }}) AS weight,
       min(e.{{ value_column }}) AS min_value
FROM {{ entries }} AS e
JOIN labelled AS l ON l.row_id = e.{{ row }}
{% if by_name %}
JOIN {{ t.features }} AS f ON f.feature = CAST(e.{{ feature }} AS {{ sql.type('VARCHAR') }})
{% else %}
JOIN {{ t.features }} AS f ON f.feature_index = e.{{ feature }}
{% endif %}
GROUP BY l.class, f.feature;
