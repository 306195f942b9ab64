"""Which prepared statements DuckDB plans again at each ``EXECUTE``.

sqlnb prepares the statements an update repeats (``sqlnb/engines/planned.py``) and the statement
that scores small in-memory inputs (``sqlnb/engines/source.py``). This prints, for statement shapes
those use, the binding and optimizing time DuckDB's JSON profile reports for one
``EXECUTE`` of a statement prepared before: a shape whose plan is kept shows (almost) no
binding time. Run: ``python benchmarks/prepared_rebind.py``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import duckdb
import pyarrow as pa

SHAPES = {
    "SELECT from Arrow": "SELECT a, b * 2 FROM slot",
    "SELECT from a table": "SELECT a, b * 2 FROM t",
    "INSERT from Arrow into a temporary table": "INSERT INTO tmp SELECT * FROM slot",
    "upsert from Arrow into a keyed table":
        "INSERT INTO t SELECT * FROM slot ON CONFLICT (a) DO UPDATE SET b = t.b + excluded.b",
    "upsert from a temporary table":
        "INSERT INTO t SELECT * FROM tmp ON CONFLICT (a) DO UPDATE SET b = t.b + excluded.b",
    "DELETE from a temporary table": "DELETE FROM tmp",
}


def profile(con: duckdb.DuckDBPyConnection, statement: str, path: Path) -> dict[str, float]:
    """Binding, optimizing and total milliseconds DuckDB reports for ``statement``."""
    con.execute("PRAGMA enable_profiling = 'json'")
    con.execute(f"PRAGMA profiling_output = '{path}'")
    con.execute(statement).fetchall()
    con.execute("PRAGMA disable_profiling")
    report = json.loads(path.read_text())
    return {"binding": report["planner"]["binding_time"] * 1e3,
            "optimizing": report["optimizer"]["total_time"] * 1e3,
            "total": report["query"]["total_time"] * 1e3}


def main() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE t (a INTEGER PRIMARY KEY, b DOUBLE)")
    con.execute("CREATE TEMP TABLE tmp (a INTEGER, b DOUBLE)")
    con.register("slot", pa.table({"a": pa.array([1, 2], pa.int32()), "b": [1.0, 2.0]}))
    print(f"DuckDB {duckdb.__version__}: one EXECUTE of a prepared statement, ms")
    print(f"{'statement':45} {'binding':>8} {'optimizing':>10} {'total':>7}")
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "profile.json"
        for n, (label, statement) in enumerate(SHAPES.items()):
            con.execute(f"PREPARE shape_{n} AS {statement}")
            con.execute(f"EXECUTE shape_{n}").fetchall()  # a first run, as sqlnb's
            times = profile(con, f"EXECUTE shape_{n}", path)
            print(f"{label:45} {times['binding']:8.3f} {times['optimizing']:10.3f} "
                  f"{times['total']:7.3f}")


if __name__ == "__main__":
    main()
