-- Score sparse (long) input with model {{ model | comment }}: a join of the entries with the
-- per class x feature coefficients and a sum per row and class, never a dense matrix.
{% import family_template as family %}
{% from 'families/counts.sql' import value %}
WITH coefficients AS (
    {{ family.read_params(t) }}
), indexed AS (
    SELECT k.class_index, f.feature_index, k.coef
    FROM coefficients AS k
    JOIN {{ t.features }} AS f USING (feature)
), constants AS (
    {{ family.class_constant(t) }}
), sums AS (
    SELECT e.{{ row }} AS row_id, i.class_index, sum({{ value({'column': 'e.value'}, p.binarize if 'binarize' in p else none) }} * i.coef) AS s
    FROM {{ entries }} AS e
    JOIN indexed AS i ON i.feature_index = e.feature_index
    GROUP BY ALL
), joint AS (
    SELECT r.{{ row }} AS row_id, k.class_index, k.constant + coalesce(s.s, 0) AS jll
    FROM {{ rows }} AS r
    CROSS JOIN constants AS k
    LEFT JOIN sums AS s ON s.row_id = r.{{ row }} AND s.class_index = k.class_index
), normalised AS (
    SELECT
        row_id,
        class_index,
        jll,
        max(jll) OVER (PARTITION BY row_id) AS m
    FROM joint
), summed AS (
    SELECT *, m + ln(sum(exp(jll - m)) OVER (PARTITION BY row_id)) AS lse
    FROM normalised
)
{% if output == 'predict' %}
SELECT s.row_id AS {{ row }}, c.class AS prediction
FROM (
    -- argmax; ties go to the first class in sorted order
    SELECT row_id, min(class_index) FILTER (WHERE jll = m) AS class_index
    FROM summed
    GROUP BY row_id
) AS s
JOIN {{ t.class_params }} AS c USING (class_index)
ORDER BY s.row_id
{% else %}
SELECT
    row_id AS {{ row }},
    list(
    {% if output == 'joint' %}jll{% elif output == 'log_proba' %}jll - lse{% else %}exp(jll - lse){% endif %}
    ORDER BY class_index) AS scores
FROM summed
GROUP BY row_id
ORDER BY row_id
{% endif %}
