{% if columns_of is defined %}
-- The columns of one table of the current schema (compared case-insensitively).
SELECT column_name FROM duckdb_columns()
WHERE lower(table_name) = {{ columns_of | lit }} AND database_name = current_database()
    AND schema_name = current_schema()
{% else %}
-- Which of these names (lowercased) are taken in the current schema, and by what kind of
-- relation. DuckDB compares identifiers case-insensitively, and so does this query; it
-- reads the catalog only, so it cannot fail inside a transaction.
WITH wanted(name) AS (
    SELECT unnest([{% for name in names %}{{ name | lit }}{{ ", " if not loop.last }}{% endfor %}]::VARCHAR[])
)
SELECT lower(table_name), 'TABLE' FROM duckdb_tables()
WHERE lower(table_name) IN (SELECT name FROM wanted)
    AND database_name = current_database() AND schema_name = current_schema()
UNION ALL
SELECT lower(view_name), 'VIEW' FROM duckdb_views()
WHERE lower(view_name) IN (SELECT name FROM wanted) AND NOT internal
    AND database_name = current_database() AND schema_name = current_schema()
{% if macro_names is not defined or macro_names %}
UNION ALL
SELECT DISTINCT lower(function_name), CASE function_type WHEN 'table_macro' THEN 'MACRO TABLE' ELSE 'MACRO' END
FROM duckdb_functions()
WHERE lower(function_name) IN (SELECT name FROM wanted) AND function_type IN ('macro', 'table_macro')
    AND database_name = current_database() AND schema_name = current_schema()
{% endif %}
{% endif %}
