-- The features that most raise each class's log-likelihood against the other classes of
-- model {{ model_comment | comment }}, {{ k | comment }} per class. The score of a feature for class c:
--   count families: the feature's coefficient for c (what one unit adds to c's joint
--     log-likelihood) minus its average coefficient over the other classes;
--   categorical: the same for each (feature, category): log P(category | c) minus its
--     average over the other classes;
--   gaussian: the average over the other classes o of KL(N(theta_c, var_c) || N(theta_o, var_o)),
--     the expected log-likelihood gain of c over o on rows of class c.
-- Every score is in nats of log-likelihood; a model of several parts (family="auto") ranks
-- the features of all its parts together, each scored by its own family.
{# One part's contrasts: (class_index, feature, category, score). #}
{% macro contrast(family, shape, t) %}
WITH params AS (
    {{ family.read_params(t) }}
)
{% if shape == 'moments' %}
SELECT
    a.class_index,
    a.feature,
    CAST(NULL AS {{ sql.type("VARCHAR") }}) AS category,
    avg(0.5 * (ln(b.var / a.var) + (a.var + (a.theta - b.theta) * (a.theta - b.theta)) / b.var - 1)) AS score
FROM params AS a
JOIN params AS b ON b.feature = a.feature AND b.class_index <> a.class_index
GROUP BY a.class_index, a.feature
{% elif shape == 'categories' %}
SELECT a.class_index, a.feature, a.category, any_value(a.coef) - avg(b.coef) AS score
FROM params AS a
JOIN params AS b
    ON b.feature = a.feature AND b.category = a.category AND b.class_index <> a.class_index
GROUP BY a.class_index, a.feature, a.category
{% else %}
SELECT a.class_index, a.feature, CAST(NULL AS {{ sql.type("VARCHAR") }}) AS category, any_value(a.coef) - avg(b.coef) AS score
FROM params AS a
JOIN params AS b ON b.feature = a.feature AND b.class_index <> a.class_index
GROUP BY a.class_index, a.feature
{% endif %}
{% endmacro %}

WITH contrast AS (
{% for part in parts %}
{% import part.template as family %}
    SELECT * FROM (
{{ contrast(family, part.shape, part.t) }}
    )
{% if not loop.last %}
    UNION ALL
{% endif %}
{% endfor %}
), ranked AS (
    SELECT
        *,
        row_number() OVER (PARTITION BY class_index ORDER BY score DESC, feature, category) AS rank
    FROM contrast
)
SELECT c.class, r.rank, r.feature, r.category, r.score
FROM ranked AS r
JOIN {{ t.class_params }} AS c USING (class_index)
WHERE r.rank <= {{ k | lit }}
ORDER BY c.class_index, r.rank
