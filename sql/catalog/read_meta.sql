{#- The metadata row of a model, or parts of it. -#}

{% macro row(t, model) -%}
-- The metadata row of model {{ model | comment }} (every column: a schema-1 row has no spec).
SELECT * FROM {{ t.meta }}
{%- endmacro %}

{% macro relations(t, model) -%}
-- The relations model {{ model | comment }} owns (a JSON list), as its last fit recorded them.
SELECT relations FROM {{ t.meta }}
{%- endmacro %}

{% macro family(t, model) -%}
-- The family of model {{ model | comment }}.
SELECT family FROM {{ t.meta }}
{%- endmacro %}

{# The version of a model: every write rewrites its metadata row and the time of that
   write, so cached parameters are fresh while this value is unchanged. #}
{% macro version(t, model) -%}
-- The version of model {{ model | comment }} (the time of its last write).
SELECT fitted_at FROM {{ t.meta }}
{%- endmacro %}

{# The features table of a model, in order (for comparing specifications before a merge). #}
{% macro features(source) -%}
-- The features of a model, in order.
SELECT feature, type, alpha, coding, min_categories
FROM {{ source.features }}
ORDER BY feature_index
{%- endmacro %}
