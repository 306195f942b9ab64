"""Compact Gaussian scoring shapes for small inputs, in plain DuckDB (no sqlnb code around
them), on the digits model (64 features x 10 classes): the statement sqlnb prepares for
an in-memory input without a missing value, with and without the per-feature shift, with
one or two inner products per class, and with the class lists read from a one-row table;
and the one-row scoring macro, its row cast twice (a check, then nested lambdas) or once
(named by a lambda; the check and flat lambdas read it). Each statement is prepared over
all 1,797 rows, over one and over none (planning and a statement's fixed cost: DuckDB
2.0.1 plans a prepared statement again at every EXECUTE), and run in turn with the
others; CPU milliseconds of this process (DuckDB's threads included), medians. Every
form's predictions are checked against the first. Results: benchmarks/results/small-inputs.md.

    PYTHONPATH=. python benchmarks/bench_compact_scoring.py --calls 25
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).parent))
from common import render
from steps import DIGITS_FEATURES, digits_table

TEMPLATE = "compact_candidates.sql"


def doubles(values: list[float]) -> str:
    """A DOUBLE[] constant (a string cast, as sqlnb writes its lists)."""
    return "CAST('[" + ", ".join(repr(float(v)) for v in values) + "]' AS DOUBLE[])"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=25)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    from sklearn.naive_bayes import GaussianNB

    table = digits_table()
    every = table.select(DIGITS_FEATURES)
    X = every.to_pandas().to_numpy()
    fitted = GaussianNB().fit(X, table.column("y").to_numpy())
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    inputs = {"all": every, "one": every.slice(0, 1), "none": every.slice(0, 0)}
    for name, rows in inputs.items():
        con.register(f"rows_{name}", rows)
    con.from_arrow(inputs["one"]).create("one_row")
    features = [f'"{f}"' for f in DIGITS_FEATURES]
    names = "[" + ", ".join(f"'{f}'" for f in DIGITS_FEATURES) + "]"
    labels = "[" + ", ".join(f"CAST({c} AS BIGINT)" for c in fitted.classes_) + "]"
    log_prior = [math.log(p) for p in fitted.class_prior_]
    # a feature's shift: the mean of the class in which it varies least (sqlnb's, where
    # the expansion around 0 would lose digits)
    stiffest = fitted.var_.argmin(axis=0)
    shift = [float(fitted.theta_[stiffest[j], j]) for j in range(X.shape[1])]

    def classes(origin: list[float]) -> list[dict[str, str]]:
        found = []
        for c in range(len(fitted.classes_)):
            a = [0.5 / v for v in fitted.var_[c]]
            m = [t - s for t, s in zip(fitted.theta_[c], origin)]
            half_log = [0.5 * math.log(2 * math.pi * v) for v in fitted.var_[c]]
            k = log_prior[c] - math.fsum(half_log) - math.fsum(x * y * y for x, y in zip(a, m))
            b = [2 * x * y for x, y in zip(a, m)]
            back = [h + x * y * y for h, x, y in zip(half_log, a, m)]
            found.append({"k": repr(k), "a": doubles(a), "b": doubles(b),
                          "ba": doubles(b + [-x for x in a]),
                          "w": [k] + b + [-x for x in a] + back})
        return found

    unshifted, shifted = classes([0.0] * len(shift)), classes(shift)
    shift_literals = [repr(s) for s in shift]
    con.execute(render(TEMPLATE, what="lists_table", table="class_lists", classes=unshifted))
    forms = {
        "SELECT * (floor)": {"what": "floor"},
        "the row's list only": {"what": "row_only", "shift": None},
        "shifted columns, 2 lists per class": {"what": "two_lists", "shift": shift_literals,
                                               "classes": shifted},
        "no shift, 2 lists per class": {"what": "two_lists", "shift": None, "classes": unshifted},
        "no shift, 1 list per class over [x, x^2]": {"what": "one_list", "shift": None,
                                                     "classes": unshifted},
        "no shift, lists from a one-row table": {"what": "table_lists", "classes": unshifted,
                                                 "table": "class_lists"},
    }
    steps = {}
    for label, form in forms.items():
        for rows in inputs:
            sql = render(TEMPLATE, source=f"rows_{rows}", features=features, labels=labels,
                         **form)
            name = f"s{len(steps)}"
            con.execute(f"PREPARE {name} AS {sql}")
            steps[(label, rows)] = f"EXECUTE {name}"
    keys = duckdb.__version__.split(".")[0] >= "2"  # struct_keys of a macro's row (2.0.1)
    macros = {
        "row cast twice: check, nested lambdas (shifted)": ("checked_nested", shifted, shift),
        "row cast twice: check, nested lambdas (no shift)": ("checked_nested", unshifted, None),
        "row cast once, named: check, flat lambdas (no shift)": ("shared_flat", unshifted, None),
        "row cast once, no check (not a candidate)": ("unchecked_flat", unshifted, None),
    }
    calls = {"one row: SELECT * of the table (floor)": "SELECT * FROM one_row"}
    for n, (label, (form, cls, origin)) in enumerate(macros.items()):
        weights = "CAST('[" + ", ".join(
            "[" + ", ".join(repr(float(v)) for v in c["w"]) + "]" for c in cls) + "]' AS DOUBLE[][])"
        con.execute(render(TEMPLATE, what="joint_macro", name=f"j{n}", form=form,
                           features=features, names=names, keys=keys, weights=weights,
                           shift_list=None if origin is None else doubles(origin)))
        con.execute(render(TEMPLATE, what="predict_macro", name=f"p{n}", joint=f"j{n}",
                           labels=labels))
        calls[f"one row: macro, {label}"] = render(TEMPLATE, what="call", name=f"p{n}",
                                                   source="one_row")
    expected = [r[0] for r in con.execute(steps[("shifted columns, 2 lists per class", "all")]).fetchall()]
    assert expected == list(fitted.predict(X))
    for (label, rows), sql in steps.items():
        if rows == "all" and label not in ("SELECT * (floor)", "the row's list only"):
            assert [r[0] for r in con.execute(sql).fetchall()] == expected, label
    for label, sql in calls.items():
        if "macro" in label:
            assert con.execute(sql).fetchall()[0][0] == expected[0], label
    times: dict = {key: [] for key in [*steps, *calls]}
    every_step = {**steps, **calls}
    for _ in range(3):
        for sql in every_step.values():
            con.execute(sql).fetchall()
    for _ in range(args.calls):
        for key, sql in every_step.items():
            start = time.process_time()
            if key in steps:  # a statement's result as NumPy arrays, as sqlnb reads it
                con.execute(sql).fetchnumpy()
            else:
                con.execute(sql).fetchall()
            times[key].append(time.process_time() - start)
    ms = {key: statistics.median(v) * 1e3 for key, v in times.items()}
    print(f"DuckDB {duckdb.__version__}, {args.calls} calls, load {load_before:.1f} -> "
          f"{os.getloadavg()[0]:.1f}; CPU ms, medians (ratio to the floor)")
    print()
    print("| statement (prepared, EXECUTE) | all 1,797 rows | one row | no row |")
    print("|---|---|---|---|")
    floor = {rows: ms[("SELECT * (floor)", rows)] for rows in inputs}
    for label in forms:
        cells = " | ".join(f"{ms[(label, rows)]:.2f} ({ms[(label, rows)] / floor[rows]:.2f}x)"
                           for rows in inputs)
        print(f"| {label} | {cells} |")
    print()
    print("| one-row call | ms | / floor |")
    print("|---|---|---|")
    table_floor = ms["one row: SELECT * of the table (floor)"]
    for label in calls:
        print(f"| {label} | {ms[label]:.2f} | {ms[label] / table_floor:.2f}x |")


if __name__ == "__main__":
    main()
