"""One-row and all-rows latency of the SQL scoring macros, and what a small partial_fit
pays to keep them fresh. Results: benchmarks/results/macros.md.

Runs against the sqlnb it imports, in this process, every step interleaved with the
others; run it in fresh processes for each tree compared (``PYTHONPATH=<tree>``)::

    python benchmarks/bench_macros.py --calls 40
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).parent))
from common import render
from steps import DIGITS_FEATURES, digits_table

import sqlnb

MODEL = "digits"


def median_ms(step: Any, calls: int) -> float:
    for _ in range(3):
        step()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--floor", action="store_true",
                        help="also time macros of the same shape that score nothing")
    args = parser.parse_args()
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    table = digits_table()
    model = sqlnb.NaiveBayes(MODEL, con=con).fit(table, "y")
    con.from_arrow(table.select(DIGITS_FEATURES).slice(0, 1)).create("one_row")
    con.from_arrow(table.select(DIGITS_FEATURES)).create("all_rows")
    predict = f"{MODEL}_predict"
    steps = {
        "select * one row": render("select_all.sql", table="one_row"),
        "macro one row": render("macro_latency.sql", macro=predict, table="one_row"),
        "select * all rows": render("select_all.sql", table="all_rows"),
        "macro all rows": render("macro_latency.sql", macro=predict, table="all_rows"),
    }
    if args.floor:  # macros of the same shape that score nothing
        con.execute(render("macro_floor.sql", model=MODEL, features=DIGITS_FEATURES))
        for shape in ("floor_row", "floor_read"):
            steps[f"{shape} one row"] = render("macro_latency.sql", macro=f"{MODEL}_{shape}",
                                               table="one_row")
    figures: dict[str, list[float]] = {name: [] for name in steps}
    refresh_digits = getattr(sqlnb.macros, "refresh_params", None)
    if refresh_digits is not None:  # the digits table's refresh alone, as a write runs it
        figures["refresh of the digits table"] = []
    # small updates of a 20-feature x 5-class Gaussian model (the batches case's shape),
    # none adding a class: the macros stay, the table they read is brought up to date
    rng = np.random.default_rng(0)

    def batch(rows: int) -> Any:
        y = rng.integers(0, 5, rows)
        X = rng.normal(y[:, None] * 0.5, 1.0, (rows, 20))
        return pa.table({**{f"x{i}": X[:, i] for i in range(20)}, "y": y})

    small = sqlnb.NaiveBayes("small", con=con).fit(batch(2000), "y")
    batches = [batch(2000) for _ in range(8)]
    refresh: list[float] = []
    if hasattr(small.engine, "execute_planned"):  # a tree with the refresh: time it alone
        planned = small.engine.execute_planned

        def timed(sql: str, key: Any = None) -> None:
            start = time.perf_counter()
            planned(sql, key)
            refresh.append(time.perf_counter() - start)
        small.engine.execute_planned = timed
    figures["partial_fit 2,000 x 20"] = []
    figures["of which the refresh"] = []
    for _ in range(args.rounds):
        for name, sql in steps.items():
            figures[name].append(median_ms(lambda sql=sql: con.execute(sql).fetchall(),
                                           args.calls))
        if refresh_digits is not None:
            figures["refresh of the digits table"].append(
                median_ms(lambda: refresh_digits(model), args.calls))
        updates = iter(batches * args.calls)
        refresh.clear()
        figures["partial_fit 2,000 x 20"].append(
            median_ms(lambda updates=updates: small.partial_fit(next(updates), "y"),
                      args.calls // 2))
        figures["of which the refresh"].append(
            statistics.median(refresh) * 1e3 if refresh else 0.0)
    print(json.dumps({"duckdb": duckdb.__version__,
                      **{name: [round(v, 2) for v in values] for name, values in figures.items()}}))


if __name__ == "__main__":
    main()
