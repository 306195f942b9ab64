"""Small inputs on the DuckDB this process imports: one digits row and all 1,797 rows
scored by ``NaiveBayes.predict``, the scikit-learn facade and the SQL macro, each beside
its floor (DuckDB ``SELECT *`` of the same rows) and beside the smallest plain-DuckDB
statement of the same shape (the statement sqlnb runs, prepared and executed with no
sqlnb code around it: what DuckDB itself costs for that shape). Every step is timed call
by call in turn with the others, so a change of the machine's load touches them all
alike. Results: benchmarks/results/latency-versions.md.

Run once per DuckDB release, alternating, e.g.::

    PYTHONPATH=. python benchmarks/bench_latency.py --calls 40
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
import sqlnb.scoring
from sqlnb.engines.dialects import DUCKDB

MODEL = "bench"


def plain_statement(model: sqlnb.NaiveBayes, source: str, rows: int) -> str:
    """The text sqlnb prepares for an in-memory input of ``rows`` rows without a missing
    value (see ``sqlnb.scoring.prepared_scores``), reading the relation ``source``."""
    return sqlnb.scoring.array_score_sql(
        model.context, DUCKDB.ident(source), "predict", [], None, literal=True,
        nulls=False, missing=False,
        per_column=rows > sqlnb.scoring.PER_COLUMN_MIN_ROWS)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--cpu", action="store_true",
                        help="time each call by this process's CPU time (DuckDB's threads "
                             "included) rather than the wall clock: steadier under load")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    load_before = os.getloadavg()
    import numpy as np
    from sklearn.datasets import load_digits

    from sqlnb.sklearn import GaussianNB

    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    table = digits_table()
    model = sqlnb.NaiveBayes(MODEL, con=con).fit(table, "y")  # the fit creates the macros
    one = table.select(DIGITS_FEATURES).slice(0, 1)
    every = table.select(DIGITS_FEATURES)
    con.register("digits_one", one)
    con.register("digits_all", every)
    con.from_arrow(one).create("one_row")
    X, y = load_digits(return_X_y=True)
    facade = GaussianNB().fit(X, y)
    con.execute(render("prepare.sql", name="shape_one",
                       statement=plain_statement(model, "digits_one", 1)))
    con.execute(render("prepare.sql", name="shape_all",
                       statement=plain_statement(model, "digits_all", len(every))))
    # planning alone: the same statements and the floor over an input of no row
    con.register("digits_none", every.slice(0, 0))
    con.execute(render("prepare.sql", name="shape_all_none",
                       statement=plain_statement(model, "digits_none", len(every))))
    con.execute(render("prepare.sql", name="shape_one_none",
                       statement=plain_statement(model, "digits_none", 1)))
    con.execute(render("prepare.sql", name="floor_none",
                       statement=render("select_all.sql", table="digits_none").strip().rstrip(";")))
    # the shape of the macro's body, planned at each call as the macro is, with no macro
    shape_table = plain_statement(model, "one_row", 1)
    macro = render("macro_latency.sql", macro=f"{MODEL}_predict", table="one_row")
    score_macro = render("table_macro_latency.sql", macro=f"{MODEL}_score", table="one_row")
    steps = {
        "one row: floor, SELECT * of the Arrow row": lambda: con.sql(
            render("select_all.sql", table="digits_one")).fetchall(),
        "one row: NaiveBayes.predict(row).fetchall()": lambda: model.predict(one).fetchall(),
        "one row: the same statement, plain PREPARE/EXECUTE": lambda: con.execute(
            "EXECUTE shape_one").fetchall(),
        "one row: sqlnb.sklearn GaussianNB().predict(X[:1])": lambda: facade.predict(X[:1]),
        "one row: floor, SELECT * of the row as a DuckDB table": lambda: con.execute(
            render("select_all.sql", table="one_row")).fetchall(),
        "one row: SQL macro": lambda: con.execute(macro).fetchall(),
        "one row: table macro <name>_score": lambda: con.execute(score_macro).fetchall(),
        "one row: the macro's expression, plain statement": lambda: con.execute(
            shape_table).fetchall(),
        "all rows: floor, SELECT * of the Arrow table": lambda: con.sql(
            render("select_all.sql", table="digits_all")).to_arrow_table(),
        "all rows: NaiveBayes.predict(table).to_arrow_table()": lambda: model.predict(
            every).to_arrow_table(),
        "all rows: the same statement, plain PREPARE/EXECUTE": lambda: con.execute(
            "EXECUTE shape_all").fetchnumpy(),
        "no row: floor, SELECT * prepared": lambda: con.execute("EXECUTE floor_none").fetchnumpy(),
        "no row: the one-row statement, prepared": lambda: con.execute(
            "EXECUTE shape_one_none").fetchnumpy(),
        "no row: the all-rows statement, prepared": lambda: con.execute(
            "EXECUTE shape_all_none").fetchnumpy(),
    }
    # the answers first: the statement and the macro agree with predict
    expected = [r[-1] for r in model.predict(every).fetchall()]
    assert [r[0] for r in con.execute("EXECUTE shape_all").fetchall()] == expected
    assert con.execute(macro).fetchall()[0][0] == expected[0]
    assert con.execute(score_macro).fetchall()[0][-1] == expected[0]
    times: dict[str, list[float]] = {name: [] for name in steps}
    for step in steps.values():
        for _ in range(3):
            step()
    for _ in range(args.calls):
        for name, step in steps.items():
            start = clock()
            step()
            times[name].append(clock() - start)
    medians = {name: statistics.median(values) * 1e3 for name, values in times.items()}
    names = list(steps)
    ratios = {
        "one row: predict / floor": medians[names[1]] / medians[names[0]],
        "one row: plain statement / floor": medians[names[2]] / medians[names[0]],
        "one row: facade / floor": medians[names[3]] / medians[names[0]],
        "one row: macro / table floor": medians[names[5]] / medians[names[4]],
        "one row: table macro <name>_score / table floor": medians[names[6]] / medians[names[4]],
        "one row: plain statement of the macro's shape / table floor": medians[names[7]] / medians[names[4]],
        "all rows: predict / floor": medians[names[9]] / medians[names[8]],
        "all rows: plain statement / floor": medians[names[10]] / medians[names[8]],
        "no row: one-row statement / floor": medians[names[12]] / medians[names[11]],
        "no row: all-rows statement / floor": medians[names[13]] / medians[names[11]],
    }
    print_measured(load_before[0], medians, ratios, "ms", duckdb=duckdb.__version__,
                   numpy=np.__version__, calls=args.calls,
                   clock="cpu" if args.cpu else "wall")


if __name__ == "__main__":
    main()
