-- Names of the databases attached to the connection (the catalog part of a model name).
SELECT database_name FROM duckdb_databases()
