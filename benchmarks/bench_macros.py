"""One-row and all-rows latency of the SQL scoring macros, and what a small partial_fit
pays to keep them fresh (issue 15, item 2). Results: benchmarks/results/macros.md.

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

sys.path.insert(0, str(Path(__file__).parent))
from common import render  # noqa: E402
from steps import DIGITS_FEATURES, digits_table  # noqa: E402

import sqlnb  # noqa: E402

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
    figures: dict[str, list[float]] = {name: [] for name in steps}
    figures["partial_fit 100 rows"] = []
    rng = np.random.default_rng(0)
    batches = [table.take(rng.choice(table.num_rows, 100, replace=False)) for _ in range(8)]
    for _ in range(args.rounds):
        for name, sql in steps.items():
            figures[name].append(median_ms(lambda sql=sql: con.execute(sql).fetchall(),
                                           args.calls))
        # a small update into the 10 known classes: the macros stay, their numbers follow
        batch = iter(batches * (args.calls + 3))
        figures["partial_fit 100 rows"].append(
            median_ms(lambda: model.partial_fit(next(batch), "y"), max(args.calls // 4, 5)))
    print(json.dumps({name: [round(v, 2) for v in values] for name, values in figures.items()}))


if __name__ == "__main__":
    main()
