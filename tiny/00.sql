-- Whether the connection's database was opened read-only (a write would fail half-way),
-- and the current transaction id (read twice, by this and a second statement, it tells an
-- open transaction from auto-commit: see DuckDBEngine.in_transaction).
SELECT
    (SELECT readonly FROM duckdb_databases() WHERE database_name = current_database()),
    txid_current()