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

{#- A hashed lookup: casting to an ENUM of the keys finds the position of ``x`` in one probe
    (a CASE compares it with every key in turn); the position indexes a list of the values,
    and a key that is none of them (NULL position) takes ``otherwise``, which COALESCE only
    evaluates for those rows. -#}
{% macro lookup(x, keys, values, otherwise) -%}
{%- if keys -%}
coalesce([{{ values | join(", ") }}][enum_code(TRY_CAST({{ x }} AS ENUM({{ keys | join(", ") }}))) + 1], {{ otherwise }})
{%- else -%}
{{ otherwise }}
{%- endif -%}
{%- endmacro %}
