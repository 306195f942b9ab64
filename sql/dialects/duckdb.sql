{#- DuckDB's spelling of the statement shapes in sql/dialects/default.sql (only those that
    differ are defined here). -#}

{% macro temp_table(name) -%}
CREATE OR REPLACE TEMP TABLE {{ name }} AS
{%- endmacro %}

{% macro raise_error(message) -%}
error({{ message }})
{%- endmacro %}
