{#- Fitted attributes in scikit-learn's layout: one row per class x feature (x category),
    ordered by class index and feature index, for the scikit-learn facade to reshape. -#}

{# Per class: its label, weight and log prior. #}
{% macro classes(t) -%}
SELECT class_index, class, weight, log_prior
FROM {{ t.class_params }}
ORDER BY class_index
{%- endmacro %}

{# Per class, feature and category of a categorical model: count, log probability and
   the feature's number of categories. #}
{% macro categories(t) -%}
SELECT c.class_index, f.feature_index, CAST(p.category AS BIGINT) AS category, p.count, p.log_prob, p.n_categories
FROM {{ t.feature_params }} AS p
JOIN {{ t.class_params }} AS c USING (class)
JOIN {{ t.features }} AS f USING (feature)
WHERE p.category IS NOT NULL
ORDER BY c.class_index, f.feature_index, CAST(p.category AS BIGINT)
{%- endmacro %}

{# Per class and feature: the parameter and statistics columns `columns`. #}
{% macro terms(t, columns) -%}
SELECT c.class_index, f.feature_index, {{ columns | join(', ') }}
FROM {{ t.feature_params }} AS p
JOIN {{ t.feature_stats }} AS s USING (class, feature)
JOIN {{ t.class_params }} AS c USING (class)
JOIN {{ t.features }} AS f USING (feature)
ORDER BY c.class_index, f.feature_index
{%- endmacro %}
