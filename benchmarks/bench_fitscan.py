"""What a fit and a small update cost, side by side with their floors, in one process.

* dense: ``NaiveBayes.fit`` of a Parquet file (5 classes, 20 Gaussian features) beside the
  moments floor (one ``GROUP BY`` computing each class's count, sums and sums of squares)
  and scikit-learn's ``GaussianNB.fit`` (reading the file with PyArrow);
* tiny: ``fit`` of 1,000 x 20 rows from an Arrow table (the sklearn facade's setting,
  ``sql_macros=False``) and the number of statements it runs;
* small batches: a loop of ``partial_fit`` calls of 2,000 x 20 rows beside plain INSERTs of
  the same Arrow batches into a table.

Runs alternate between the steps (so load changes hit them alike); medians are reported,
with the load average and versions. Usage::

    python benchmarks/bench_fitscan.py --rows 5000000 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import common
import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import sqlnb
from sqlnb.engines.duckdb import DuckDBEngine


class CountingEngine(DuckDBEngine):
    """Counts the statements the engine runs (every call that reaches the connection)."""

    count = 0
    scans = 0  # batch scans of the source
    joined = 0  # of them, those summing some feature around per-class shifts

    def execute(self, sql, *a, **k):
        CountingEngine.count += 1
        if "One scan of the source" in sql:
            CountingEngine.scans += 1
            CountingEngine.joined += "__pilot" in sql or "__shift" in sql
        return super().execute(sql, *a, **k)

    def fetch(self, sql, *a, **k):
        CountingEngine.count += 1
        return super().fetch(sql, *a, **k)

    def fetch_with_names(self, sql, *a, **k):
        CountingEngine.count += 1
        return super().fetch_with_names(sql, *a, **k)

    def fetch_readable(self, sql, *a, **k):
        CountingEngine.count += 1
        return super().fetch_readable(sql, *a, **k)

    def execute_planned(self, sql, *a, **k):
        CountingEngine.count += 1
        return super().execute_planned(sql, *a, **k)

    def fetch_planned(self, sql, *a, **k):
        CountingEngine.count += 1
        return super().fetch_planned(sql, *a, **k)


# the medians of the cases run, for --json
SUMMARY: dict[str, dict[str, float]] = {}


def timed(step) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def side_by_side(steps: dict, repeats: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in steps}
    for name, step in steps.items():  # a warm-up each
        step()
    for _ in range(repeats):
        for name, step in steps.items():
            times[name].append(timed(step))
    return times


def table_of(times: dict[str, list[float]], unit: float = 1.0, suffix: str = "s") -> list[str]:
    lines = ["| step | median | runs |", "|---|---|---|"]
    for name, values in times.items():
        runs = ", ".join(f"{v / unit:.3f}" for v in values)
        lines.append(f"| {name} | {statistics.median(values) / unit:.3f} {suffix} | {runs} |")
    return lines


def dense(rows: int, repeats: int, out: list[str], path: Path | None = None) -> None:
    path = path or common.dense(rows)
    columns = [c for c in common.parquet_columns(path) if c != "y"]
    con = common.connect()
    floor_sql = common.render("moments_by_class.sql", target="y", columns=columns, path=str(path))
    engine = CountingEngine(con)

    def fit() -> None:
        sqlnb.NaiveBayes("bench", con=engine, sql_macros=False).fit(str(path), "y")

    def sklearn() -> None:
        from sklearn.naive_bayes import GaussianNB

        table = pq.read_table(path)
        X = np.column_stack([table[c].to_numpy() for c in columns])
        GaussianNB().fit(X, table["y"].to_numpy())

    CountingEngine.count = CountingEngine.scans = CountingEngine.joined = 0
    fit()
    statements, scans, joined = CountingEngine.count, CountingEngine.scans, CountingEngine.joined
    times = side_by_side({"moments floor (one GROUP BY: count, sum, sum of squares)":
                          lambda: con.execute(floor_sql).fetchall(),
                          "sqlnb fit": fit, "scikit-learn GaussianNB.fit (PyArrow -> NumPy)":
                          sklearn}, repeats)
    floor, ours = (statistics.median(v) for v in list(times.values())[:2])
    out += [f"### dense fit ({path.name}: {len(columns)} features, Parquet)", ""]
    out += table_of(times)
    out += ["", (f"sqlnb fit / floor: **{ours / floor:.2f}x**; statements per fit: {statements}; "
            f"scans of the source: {scans} ({joined} with per-class shifts)"), ""]


def tiny(repeats: int, out: list[str]) -> None:
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(1000, 20)), rng.integers(0, 3, 1000)
    X += y[:, None] * 3.0  # well-separated blobs, as check_estimator's
    data = pa.table({**{f"x{i}": X[:, i] for i in range(20)}, "y": y})
    engine = CountingEngine(duckdb.connect())
    model = sqlnb.NaiveBayes("tiny", con=engine, sql_macros=False)

    def fit() -> None:
        model.fit(data, "y")

    def sklearn() -> None:
        from sklearn.naive_bayes import GaussianNB

        GaussianNB().fit(X, y)

    fit()
    CountingEngine.count = 0
    fit()
    statements = CountingEngine.count
    times = side_by_side({"sqlnb fit": fit, "scikit-learn GaussianNB.fit": sklearn},
                         repeats * 10)
    out += ["### tiny fit (1,000 x 20, Arrow table, sql_macros=False)", ""]
    out += table_of(times, 1e-3, "ms")
    out += ["", f"statements per fit: {statements}", ""]
    SUMMARY["tiny"] = {"fit_ms": statistics.median(times["sqlnb fit"]) * 1e3,
                       "sklearn_ms": statistics.median(times["scikit-learn GaussianNB.fit"]) * 1e3,
                       "statements": statements}


def small_batches(repeats: int, out: list[str]) -> None:
    rng = np.random.default_rng(1)
    batches = []
    for _ in range(40):
        y = rng.integers(0, 5, 2000)
        X = rng.normal(size=(2000, 20)) + y[:, None] * 0.5
        batches.append(pa.table({**{f"x{i}": X[:, i] for i in range(20)}, "y": y}))
    con = duckdb.connect()
    con.register("batch", batches[0])
    con.execute(common.render("empty_like.sql", table="rows", source="batch"))
    insert = common.render("insert_batch.sql", table="rows", source="batch")
    engine = CountingEngine(duckdb.connect())

    def inserts() -> None:
        for b in batches:
            con.register("batch", b)
            con.execute(insert)

    def updates() -> None:
        model = sqlnb.NaiveBayes("loop", con=engine)
        for b in batches:
            model.partial_fit(b, "y")

    CountingEngine.count = 0
    updates()
    statements = CountingEngine.count / 40
    times = side_by_side({"DuckDB INSERT loop": inserts, "sqlnb partial_fit loop": updates},
                         repeats)
    insert_time, ours = (statistics.median(v) for v in times.values())
    SUMMARY["small_batches"] = {"insert_s": insert_time, "partial_fit_s": ours,
                                "ratio": ours / insert_time, "statements": statements}
    out += ["### small batches (40 x 2,000 x 20, Arrow, macros on)", ""]
    out += table_of(times)
    out += ["", (f"partial_fit loop / INSERT loop: **{ours / insert_time:.2f}x**; "
            f"statements per call: {statements:.1f}"), ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", nargs="+", default=["dense", "tiny", "small_batches"])
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--json", action="store_true",
                        help="print the medians as one JSON line at the end")
    parser.add_argument("--path", type=Path, default=None,
                        help="the dense case's Parquet file (y and x0...; default: generated)")
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    out = [(f"DuckDB {duckdb.__version__}, Python {sys.version.split()[0]}, "
           f"{os.cpu_count()} cores, load at start {load}"), ""]
    if "dense" in args.cases:
        dense(args.rows, args.repeats, out, args.path)
    if "tiny" in args.cases:
        tiny(args.repeats, out)
    if "small_batches" in args.cases:
        small_batches(args.repeats, out)
    out.append(f"load at end {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    text = "\n".join(out)
    print(text)
    if args.output:
        with open(args.output, "a") as f:
            f.write(text + "\n\n")
    if args.json:
        print(json.dumps({"duckdb": duckdb.__version__, **SUMMARY}))


if __name__ == "__main__":
    main()
