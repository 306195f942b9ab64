"""What a database holds, to compare before and after a refused write or import."""

from __future__ import annotations

import duckdb


def catalog(con: duckdb.DuckDBPyConnection) -> list:
    """Every relation and macro of the database, with each table's rows."""
    names = con.execute(
        "SELECT 'table', table_name FROM duckdb_tables() UNION ALL "
        "SELECT 'view', view_name FROM duckdb_views() WHERE NOT internal UNION ALL "
        "SELECT 'macro', function_name FROM duckdb_functions() "
        "WHERE function_type IN ('macro', 'table_macro') AND NOT internal ORDER BY ALL"
    ).fetchall()
    return names + [con.execute(f'SELECT * FROM "{name}" ORDER BY ALL').fetchall()
                    for kind, name in names if kind == "table"]
