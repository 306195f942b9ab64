{#- What sqlnb asks of the database it runs on: its settings, its attached databases and
    which names are taken. -#}

{% macro attached_databases() -%}
-- Names of the databases attached to the connection (the catalog part of a model name).
SELECT database_name FROM duckdb_databases()
{%- endmacro %}

{% macro read_only() -%}
-- Whether the connection's database was opened read-only (a write would fail half-way),
-- and the current transaction id (read twice, by this and a second statement, it tells an
-- open transaction from auto-commit: see DuckDBEngine.in_transaction).
SELECT
    (SELECT readonly FROM duckdb_databases() WHERE database_name = current_database()),
    txid_current()
{%- endmacro %}

{% macro insertion_order() -%}
-- Whether the connection keeps the rows of a result in their insertion order.
SELECT current_setting('preserve_insertion_order')
{%- endmacro %}

{# DuckDB's progress reporting for one connection: sqlnb reads the percentage itself
   (query_progress) and draws its own bar, so DuckDB's printed bar stays off meanwhile. #}
{% macro progress_settings() -%}
-- The connection's progress reporting, before sqlnb draws its own bar.
SELECT current_setting('enable_progress_bar'), current_setting('enable_progress_bar_print')
{%- endmacro %}

{% macro set_progress(printed, enabled=none) -%}
-- The connection's progress reporting, while sqlnb draws its own bar (or after).
{% if enabled is not none %}
SET enable_progress_bar = {{ enabled | lit }};
{% endif %}
SET enable_progress_bar_print = {{ printed | lit }};
{%- endmacro %}

{# Which of `names` (lowercased) are taken in the current schema, and by what kind of
   relation. DuckDB compares identifiers case-insensitively, and so does this query; it
   reads the catalog only, so it cannot fail inside a transaction. `macro_names`: whether
   to look at macros too. #}
{% macro relations(names, macro_names=true) -%}
{% set wanted -%}
[{% for name in names %}{{ name | lit }}{{ ", " if not loop.last }}{% endfor %}]::VARCHAR[]
{%- endset -%}
-- Which of these names (lowercased) are taken in the current schema, and by what kind of
-- relation.
SELECT lower(table_name), 'TABLE' FROM duckdb_tables()
WHERE list_contains({{ wanted }}, lower(table_name))
    AND database_name = current_database() AND schema_name = current_schema()
UNION ALL
SELECT lower(view_name), 'VIEW' FROM duckdb_views()
WHERE list_contains({{ wanted }}, lower(view_name)) AND NOT internal
    AND database_name = current_database() AND schema_name = current_schema()
{% if macro_names %}
UNION ALL
SELECT DISTINCT lower(function_name), CASE function_type WHEN 'table_macro' THEN 'MACRO TABLE' ELSE 'MACRO' END
FROM duckdb_functions()
WHERE list_contains({{ wanted }}, lower(function_name)) AND function_type IN ('macro', 'table_macro')
    AND database_name = current_database() AND schema_name = current_schema()
{% endif %}
{%- endmacro %}

{# The columns of one table of the current schema (`columns_of`, lowercased: compared
   case-insensitively). #}
{% macro table_columns(columns_of) -%}
-- The columns of one table of the current schema.
SELECT column_name FROM duckdb_columns()
WHERE lower(table_name) = {{ columns_of | lit }} AND database_name = current_database()
    AND schema_name = current_schema()
{%- endmacro %}
