"""The engine (the only code that talks to the database) and the dialect's type kinds."""

from __future__ import annotations

import duckdb
import pytest

from sqlnb.engines import engine_for
from sqlnb.engines.dialects import DUCKDB
from sqlnb.engines.duckdb import DuckDBEngine, RecordingEngine
from sqlnb.errors import InvalidParameterError


def tables(engine) -> list[tuple]:
    return engine.fetch("SELECT table_name FROM duckdb_tables() ORDER BY ALL")


def test_the_engine_is_chosen_from_the_connection():
    con = duckdb.connect()
    engine = engine_for(con)
    assert isinstance(engine, DuckDBEngine) and engine.connection is con
    assert engine_for(engine) is engine
    with pytest.raises(InvalidParameterError, match="DuckDB connection"):
        engine_for("not a connection")


def test_a_transaction_commits_at_the_end_and_rolls_back_on_an_error():
    engine = engine_for(duckdb.connect())
    with engine.transaction():
        engine.execute("CREATE TABLE kept AS SELECT 1 AS x")
    with pytest.raises(duckdb.Error), engine.transaction():
        engine.execute("CREATE TABLE lost AS SELECT 1 AS x")
        engine.execute("SELECT * FROM no_such_table")
    assert tables(engine) == [("kept",)]


def test_an_inner_transaction_joins_the_outer_one():
    engine = engine_for(duckdb.connect())
    with pytest.raises(RuntimeError), engine.transaction():
        with engine.transaction():
            engine.execute("CREATE TABLE inner_one AS SELECT 1 AS x")
        raise RuntimeError("the outer transaction fails after the inner one ended")
    assert tables(engine) == []


def test_a_recording_engine_keeps_the_writes_and_a_dry_run_leaves_nothing():
    engine = engine_for(duckdb.connect())
    recorder = RecordingEngine(engine)
    with engine.rolled_back():
        recorder.execute("CREATE TABLE t AS SELECT 41 AS x")
        recorder.execute("UPDATE t SET x = x + 1")
        assert recorder.fetch("SELECT x FROM t") == [(42,)]  # reads see the writes
    assert recorder.statements == ["CREATE TABLE t AS SELECT 41 AS x", "UPDATE t SET x = x + 1"]
    assert tables(engine) == []


@pytest.mark.parametrize("sql_type, kind", [
    ("BIGINT", "integer"), ("utinyint", "integer"), ("DOUBLE", "float"), ("REAL", "float"),
    ("DECIMAL(18,3)", "decimal"), ("BOOLEAN", "bool"), ("VARCHAR", "text"),
    ("ENUM('a', 'b')", "enum"), ("INTEGER[]", "nested"), ("STRUCT(a INTEGER)", "nested"),
    ("MAP(VARCHAR, INTEGER)", "nested"), ("DATE", "other"), (None, "other"),
])
def test_the_dialect_names_the_kind_of_each_type(sql_type, kind):
    assert DUCKDB.kind(sql_type) == kind
