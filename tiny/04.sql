-- Which of these names (lowercased) are taken in the current schema, and by what kind of
-- relation.
WITH wanted(name) AS (
    SELECT unnest(['tiny_meta', 'tiny_class_stats', 'tiny_features', 'tiny_feature_stats', 'tiny_class_params', 'tiny_feature_params']::VARCHAR[])
)
SELECT lower(table_name), 'TABLE' FROM duckdb_tables()
WHERE lower(table_name) IN (SELECT name FROM wanted)
    AND database_name = current_database() AND schema_name = current_schema()
UNION ALL
SELECT lower(view_name), 'VIEW' FROM duckdb_views()
WHERE lower(view_name) IN (SELECT name FROM wanted) AND NOT internal
    AND database_name = current_database() AND schema_name = current_schema()
