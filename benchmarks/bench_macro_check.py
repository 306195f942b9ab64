"""The scoring macros' check that a row has every feature, in its two spellings, side by
side in one process: the digits model's macros created twice, once with the check read
from the row cast to ``MAP(VARCHAR, VARCHAR)`` (every release) and once from
``struct_keys`` (``Engine.macro_row_keys``, DuckDB 2.0.1), and called in turn on one row
and on all 1,797 rows, beside ``SELECT *`` of the same rows (CPU time of this process,
which counts DuckDB's threads too). Results: benchmarks/results/small-inputs.md.

    PYTHONPATH=. python benchmarks/bench_macro_check.py --calls 30
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).parent))
from common import print_measured, render
from steps import DIGITS_FEATURES, digits_table

import sqlnb
from sqlnb.engines.duckdb import DuckDBEngine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30)
    args = parser.parse_args()
    load_before = os.getloadavg()
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    table = digits_table()
    supported = DuckDBEngine.macro_row_keys
    forms = {"cast": False, "keys": supported}
    for name, keys in forms.items():  # the macros are written by the fit
        DuckDBEngine.macro_row_keys = keys
        sqlnb.NaiveBayes(name, con=con).fit(table, "y")
    DuckDBEngine.macro_row_keys = supported
    con.from_arrow(table.select(DIGITS_FEATURES).slice(0, 1)).create("one_row")
    con.from_arrow(table.select(DIGITS_FEATURES)).create("all_rows")
    steps = {"one row: floor": render("select_all.sql", table="one_row"),
             "all rows: floor": render("select_all.sql", table="all_rows")}
    for rows in ("one_row", "all_rows"):
        label = "one row" if rows == "one_row" else "all rows"
        for name in forms:
            steps[f"{label}: {name}"] = render("macro_latency.sql", macro=f"{name}_predict",
                                               table=rows)
    answers = {name: con.execute(sql).fetchall() for name, sql in steps.items()}
    assert answers["all rows: cast"] == answers["all rows: keys"]
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(args.calls):
        for name, sql in steps.items():
            start = time.process_time()
            con.execute(sql).fetchall()
            times[name].append(time.process_time() - start)
    medians = {name: statistics.median(values[2:]) * 1e3 for name, values in times.items()}
    ratios = {name: medians[name] / medians[f"{name.split(':')[0]}: floor"]
              for name in steps if not name.endswith("floor")}
    print_measured(load_before[0], medians, ratios, "cpu_ms", duckdb=duckdb.__version__,
                   struct_keys=supported, calls=args.calls)


if __name__ == "__main__":
    main()
