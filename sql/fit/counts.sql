{#- The counts a write asks of a model's tables. -#}

{% macro batch_rows(t) -%}
-- Number of rows in the batch table (classes, or class x category cells).
SELECT count(*) FROM {{ t.batch }}
{%- endmacro %}

{% macro class_count(t) -%}
-- Number of classes the model knows.
SELECT count(*) FROM {{ t.class_stats }}
{%- endmacro %}
