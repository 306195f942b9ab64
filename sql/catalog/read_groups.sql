{# Whether the model has per-group models (asked without failing, inside a transaction). #}
{% macro exists(group_columns_name) -%}
-- Whether the model has per-group models.
SELECT count(*) FROM duckdb_tables()
WHERE lower(table_name) = lower({{ group_columns_name | lit }}) AND database_name = current_database()
    AND schema_name = current_schema()
{%- endmacro %}

{# The group columns of a per-group model, in order. #}
{% macro columns(group_columns) -%}
-- The group columns of a per-group model, in order.
SELECT name, type FROM {{ group_columns }} ORDER BY position
{%- endmacro %}
