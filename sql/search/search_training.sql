-- Held-out training statistics for the cross-validation of model {{ model | comment }}:
-- the per-group statistics of fold k (its own rows) are replaced by those of every
-- labelled row outside fold k, i.e. the pooled statistics minus the fold's. Parameter
-- views over these tables then describe, per fold, the model fitted without that fold.
-- With the user's groups before the fold, each (group, fold) gets its group's rows
-- outside the fold, combined from the group's other folds.
{% set fold = t.groups[-1].column %}
{% set groups = t.groups[:-1] %}
{% if groups %}
{% set keys %}{% for g in groups %}{{ g.column }}, {% endfor %}{{ fold }}{% endset %}
{% macro same_group(a, b) %}{% for g in groups %}{{ a }}.{{ g.column }} = {{ b }}.{{ g.column }} AND {% endfor %}{{ a }}.{{ fold }} <> {{ b }}.{{ fold }}{% endmacro %}
{% macro key_columns(a) %}{% for g in groups %}{{ a }}.{{ g.column }}, {% endfor %}{{ a }}.{{ fold }}{% endmacro %}
{{ sql.temp_table(training_classes) }}
WITH keys AS (
    SELECT DISTINCT {{ keys }} FROM {{ t.class_stats }}
)
SELECT {{ key_columns('k') }}, s.class, sum(s.n) AS n, sum(s.weight) AS weight
FROM keys AS k
JOIN {{ t.class_stats }} AS s ON {{ same_group('s', 'k') }}
GROUP BY ALL
HAVING sum(s.n) > 0;

{{ sql.temp_table(training_features) }}
WITH parts AS (
    -- each (group, fold) with the statistics of the group's other folds
    SELECT {{ key_columns('k') }}, {{ sql.all_except([keys], of='s.') }}
    FROM {{ training_classes }} AS k
    JOIN {{ t.feature_stats }} AS s ON {{ same_group('s', 'k') }} AND s.class = k.class
){% if kind == 'moments' %}, totals AS (
    SELECT
        {{ keys }}, class, feature,
        sum(weight) AS total_weight,
        sum(n) AS total_n,
        CASE WHEN sum(weight) = 0 THEN 0 ELSE sum(weight * mean) / sum(weight) END AS total_mean,
        CASE WHEN sum(n) = 0 THEN 0 ELSE sum(n * n_mean) / sum(n) END AS total_n_mean
    FROM parts
    GROUP BY ALL
){% endif %}

SELECT
{% if kind == 'moments' %}
    -- the pairwise (Chan) combination of the other folds' moments
    {{ key_columns('p') }}, p.class, p.feature,
    sum(p.n) AS n,
    any_value(c.total_weight) AS weight,
    any_value(c.total_mean) AS mean,
    sum(p.m2 + p.weight * (p.mean - c.total_mean) * (p.mean - c.total_mean)) AS m2,
    any_value(c.total_n_mean) AS n_mean,
    sum(p.n_m2 + p.n * (p.n_mean - c.total_n_mean) * (p.n_mean - c.total_n_mean)) AS n_m2
FROM parts AS p
JOIN totals AS c USING ({{ keys }}, class, feature)
GROUP BY ALL
{% elif kind == 'categories' %}
    {{ keys }}, class, feature, category, sum(n) AS n, sum(count) AS count
FROM parts
GROUP BY ALL
-- a category seen only in the held-out fold is unknown to that fold's model
HAVING sum(n) > 0
{% else %}
    {{ keys }}, class, feature, sum(n) AS n, sum(count) AS count, sum(weight) AS weight
FROM parts
GROUP BY ALL
{% endif %}
;
{% else %}
{{ sql.temp_table(training_classes) }}
WITH folds AS (
    SELECT DISTINCT {{ fold }} FROM {{ t.class_stats }}
)
SELECT k.{{ fold }}, p.class, p.n - coalesce(g.n, 0) AS n, p.weight - coalesce(g.weight, 0) AS weight
FROM {{ pooled.class_stats }} AS p
CROSS JOIN folds AS k
LEFT JOIN {{ t.class_stats }} AS g ON g.{{ fold }} = k.{{ fold }} AND g.class = p.class
WHERE p.n - coalesce(g.n, 0) > 0;

{{ sql.temp_table(training_features) }}
SELECT
    k.{{ fold }},
    p.class,
    p.feature,
{% if kind == 'categories' %}
    p.category,
{% endif %}
    p.n - coalesce(g.n, 0) AS n,
{% if kind == 'moments' %}
    -- the pairwise (Chan) update run backwards: removing the fold's moments
    p.weight - coalesce(g.weight, 0) AS weight,
    CASE WHEN p.weight - coalesce(g.weight, 0) = 0 THEN 0 ELSE
        p.mean + (p.mean - coalesce(g.mean, p.mean)) * coalesce(g.weight, 0) / (p.weight - coalesce(g.weight, 0)) END AS mean,
    CASE WHEN p.weight - coalesce(g.weight, 0) = 0 THEN 0 ELSE greatest(
        p.m2 - coalesce(g.m2, 0)
        - (coalesce(g.mean, p.mean) - p.mean) * (coalesce(g.mean, p.mean) - p.mean)
          * coalesce(g.weight, 0) * p.weight / (p.weight - coalesce(g.weight, 0)), 0) END AS m2,
    CASE WHEN p.n - coalesce(g.n, 0) = 0 THEN 0 ELSE
        p.n_mean + (p.n_mean - coalesce(g.n_mean, p.n_mean)) * coalesce(g.n, 0) / (p.n - coalesce(g.n, 0)) END AS n_mean,
    CASE WHEN p.n - coalesce(g.n, 0) = 0 THEN 0 ELSE greatest(
        p.n_m2 - coalesce(g.n_m2, 0)
        - (coalesce(g.n_mean, p.n_mean) - p.n_mean) * (coalesce(g.n_mean, p.n_mean) - p.n_mean)
          * coalesce(g.n, 0) * p.n / (p.n - coalesce(g.n, 0)), 0) END AS n_m2
{% elif kind == 'categories' %}
    p.count - coalesce(g.count, 0) AS count
{% else %}
    p.count - coalesce(g.count, 0) AS count,
    p.weight - coalesce(g.weight, 0) AS weight
{% endif %}
FROM {{ pooled.feature_stats }} AS p
JOIN {{ training_classes }} AS k ON k.class = p.class
LEFT JOIN {{ t.feature_stats }} AS g
    ON g.{{ fold }} = k.{{ fold }} AND g.class = p.class AND g.feature = p.feature{% if kind == 'categories' %} AND g.category = p.category{% endif %}

{% if kind == 'categories' %}
-- a category seen only in the held-out fold is unknown to that fold's model
WHERE p.n - coalesce(g.n, 0) > 0
{% endif %}
;

{% endif %}

{% if in_place %}
DELETE FROM {{ t.feature_stats }};
DELETE FROM {{ t.class_stats }};
INSERT INTO {{ t.class_stats }} BY NAME SELECT * FROM {{ training_classes }};
INSERT INTO {{ t.feature_stats }} BY NAME SELECT * FROM {{ training_features }};
DROP TABLE {{ training_features }};
DROP TABLE {{ training_classes }};
{% endif %}
{#- (else the parameter views read the training tables, dropped with the scratch model) -#}
