{#- DuckDB's spelling of the statement shapes in sql/dialects/default.sql (only those that
    differ are defined here). -#}

{% macro temp_table(name) -%}
CREATE OR REPLACE TEMP TABLE {{ name }} AS
{%- endmacro %}

{% macro raise_error(message) -%}
error({{ message }})
{%- endmacro %}

{% macro all_except(columns) -%}
* EXCLUDE ({{ columns | join(", ") }})
{%- endmacro %}

{#- isfinite/isinf, not isnan: DuckDB folds isnan(x) to false on Parquet columns whose
    statistics leave NaN out. -#}
{% macro is_number(x) -%}
isfinite({{ x }}) OR isinf({{ x }})
{%- endmacro %}
