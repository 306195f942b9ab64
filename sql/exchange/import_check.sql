{#- What an import reads of an exported Parquet file before it trusts it. -#}

{% macro columns(path) -%}
-- The columns (names and types) of an exported file, as DuckDB reads them.
DESCRIBE SELECT * FROM read_parquet({{ path | file_lit }})
{%- endmacro %}

{% macro rows(path) -%}
-- The number of rows of an exported file.
SELECT count(*) FROM read_parquet({{ path | file_lit }})
{%- endmacro %}

{% macro table(path) -%}
-- The rows of a small exported table (the group columns, the analyzer's settings).
SELECT * FROM read_parquet({{ path | file_lit }}, file_row_number = true) ORDER BY file_row_number
{%- endmacro %}

{% macro group_indexes(path) -%}
-- The groups a stacked file of a per-group text model has rows for, and how many each.
SELECT group_index, count(*) FROM read_parquet({{ path | file_lit }}) GROUP BY group_index
{%- endmacro %}
