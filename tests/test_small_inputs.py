"""Small in-memory inputs: what ``predict`` skips asking DuckDB, and that it still refuses
what it must."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

import sqlnb
from sqlnb.errors import InvalidDataError
from sqlnb.source import resolve


def described(con: duckdb.DuckDBPyConnection, table: pa.Table) -> dict[str, str]:
    con.register("described", table)
    try:
        return {row[0]: row[1] for row in con.execute("DESCRIBE SELECT * FROM described").fetchall()}
    finally:
        con.unregister("described")


def test_an_arrow_tables_columns_are_what_duckdb_describes():
    con = duckdb.connect()
    table = pa.table({
        "f64": pa.array([1.5]), "f32": pa.array([1.5], pa.float32()),
        "i64": pa.array([1], pa.int64()), "i32": pa.array([1], pa.int32()),
        "i16": pa.array([1], pa.int16()), "i8": pa.array([1], pa.int8()),
        "flag": pa.array([True]), "text": pa.array(["a"]),
        "long_text": pa.array(["a"], pa.large_string()),
    })

    assert resolve(con, table).columns == described(con, table)


def test_arrow_names_duckdb_would_rename_are_described_by_duckdb():
    con = duckdb.connect()
    table = pa.table([pa.array([1.0]), pa.array([2.0])], names=["A", "a"])

    assert resolve(con, table).columns == {"A": "DOUBLE", "a_1": "DOUBLE"}


def test_a_text_column_is_refused_after_numeric_inputs_were_scored():
    con = duckdb.connect()
    training = pa.table({"x": [1.0, 2.0, 10.0, 11.0], "y": [0, 0, 1, 1]})
    model = sqlnb.NaiveBayes("m", con=con, sql_macros=False).fit(training, "y")
    assert model.predict(pa.table({"x": [1.5]})).fetchall() == [(1.5, 0)]

    with pytest.raises(InvalidDataError, match="needs numbers"):
        model.predict(pa.table({"x": ["1.5"]}))
