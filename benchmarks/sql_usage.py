"""Scoring through the macros and the standalone SQL against predict(); grouped fits.

Run once: python benchmarks/sql_usage.py [rows]. Prints seconds per step (one run each).
"""

from __future__ import annotations

import sys
import time

import duckdb

import sqlnb

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
con = duckdb.connect()
columns = ", ".join(f"random() + (range % 3) * {0.1 * (i + 1)} AS x{i}" for i in range(10))
con.execute(f"CREATE TABLE data AS SELECT range % 3 AS y, range % 100 AS store, {columns} "
            f"FROM range({rows})")
features = [f"x{i}" for i in range(10)]
print(f"DuckDB {duckdb.__version__}, {rows:,} rows")


def timed(label, action):
    start = time.perf_counter()
    result = action()
    print(f"{label:48s} {time.perf_counter() - start:7.3f} s")
    return result


model = sqlnb.NaiveBayes("m", con=con)
timed("fit (ordinary)", lambda: model.fit("data", "y", features=features))
timed("predict() -> count per class", lambda: con.sql(
    "SELECT prediction, count(*) FROM p GROUP BY 1").fetchall()
    if con.register("p", model.predict("data")) else None)
timed("m_predict(t) macro -> count per class", lambda: con.execute(
    "SELECT m_predict(t), count(*) FROM data t GROUP BY 1").fetchall())
timed("m_predict_proba(t) macro -> sum", lambda: con.execute(
    "SELECT sum(m_predict_proba(t).\"1\") FROM data t").fetchall())
timed("to_sql() statement -> count per class", lambda: con.execute(
    f"SELECT prediction, count(*) FROM ({model.to_sql('data')}) GROUP BY 1").fetchall())
timed("evaluate()", lambda: model.evaluate("data"))
timed("fit(group_by=store), 100 groups", lambda: model.fit("data", "y", features=features,
                                                           group_by="store"))
timed("grouped predict() -> count per class", lambda: con.sql(
    "SELECT prediction, count(*) FROM q GROUP BY 1").fetchall()
    if con.register("q", model.predict("data")) else None)
timed("grouped m_predict(t) macro -> count", lambda: con.execute(
    "SELECT m_predict(t), count(*) FROM data t GROUP BY 1").fetchall())
