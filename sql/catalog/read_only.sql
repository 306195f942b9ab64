-- Whether the connection's database was opened read-only (a write would fail half-way).
SELECT readonly FROM duckdb_databases() WHERE database_name = current_database()
