{#- What a cross-validation needs to know of its per-fold statistics: `t` is the scratch
    model's tables keyed by its groups (the fold last), `pooled` its pooled tables. -#}

{# The folds that have labelled rows, in order (scikit-learn's PredefinedSplit order). #}
{% macro folds(t) -%}
SELECT DISTINCT {{ t.groups[-1].column }} FROM {{ t.class_stats }} ORDER BY 1
{%- endmacro %}

{# The (group, fold) pairs that have labelled rows, in order. #}
{% macro keys(t) -%}
{% set keys %}{% for g in t.groups %}{{ g.column }}{{ ", " if not loop.last }}{% endfor %}{% endset %}
SELECT DISTINCT {{ keys }}
FROM {{ t.class_stats }} ORDER BY {{ keys }}
{%- endmacro %}

{# Groups whose labelled rows all fall in one fold: no rows to train on when it is held out. #}
{% macro single_fold_groups(t) -%}
SELECT {% for g in t.groups[:-1] %}{{ g.column }}{{ ", " if not loop.last }}{% endfor %}
FROM {{ t.class_stats }}
GROUP BY ALL
HAVING count(DISTINCT {{ t.groups[-1].column }}) < 2
ORDER BY ALL
LIMIT 5
{%- endmacro %}

{# The classes of every labelled row, in class-index order. #}
{% macro labels(pooled) -%}
SELECT class FROM {{ pooled.class_params }} ORDER BY class_index
{%- endmacro %}

{# Whether no labelled row misses a feature value: every class's feature counts equal its
   row count (a feature's count of rows with a value is at most the class's rows). #}
{% macro complete(pooled, n_features) -%}
SELECT (SELECT coalesce(sum(n), 0) FROM {{ pooled.feature_stats }})
    = (SELECT coalesce(sum(n), 0) FROM {{ pooled.class_stats }}) * {{ n_features | lit }}
{%- endmacro %}
