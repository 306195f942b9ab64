-- The columns of one table of model {{ model | comment }}, in order, with their types: what
-- an export writes of it (and records in model.json).
SELECT column_name, data_type
FROM duckdb_columns()
WHERE lower(table_name) = lower({{ table_name | lit }}) AND database_name = current_database()
    AND schema_name = current_schema()
ORDER BY column_index
