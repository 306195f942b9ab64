-- One pass over sparse (long) input: entries (row, feature_index, value) joined to the
-- rows' labels. Class totals come out with feature NULL; absent entries are zeros.
{% from 'families/counts.sql' import value %}
CREATE OR REPLACE TEMP TABLE {{ t.batch }} AS
WITH labelled AS (
    SELECT
        {{ row }} AS row_id,
        {{ target }} AS class,
        {% if weight %}CAST({{ weight }} AS DOUBLE){% else %}1.0{% endif %} AS weight
    FROM {{ rows }}
    WHERE {{ target }} IS NOT NULL
)
SELECT class, CAST(NULL AS VARCHAR) AS feature, count(*) AS n, sum(weight) AS weight,
       CAST(NULL AS DOUBLE) AS min_value
FROM labelled
GROUP BY class
UNION ALL
SELECT l.class, f.feature, count(*) AS n, sum(l.weight * {{ value({'column': 'e.value'}, binarize) }}) AS weight,
       min(e.value) AS min_value
FROM {{ entries }} AS e
JOIN labelled AS l ON l.row_id = e.{{ row }}
JOIN {{ t.features }} AS f ON f.feature_index = e.feature_index
GROUP BY l.class, f.feature;
