"""explain and drift against the scoring and the fit they mirror, side by side in one run.

A DuckDB table of ``--rows`` rows x ``--features`` Gaussian features (2 classes) is made
in memory; per round (interleaved, medians of ``--repeats``): ``predict_joint_log_proba``,
``explain`` (every term), ``explain(top=3)`` and the floor (a plain SELECT of the same
rows), each read whole by one aggregate over every output column (the sum of a number,
the count of anything else, so no column is pruned and the reading costs little per
row); ``predict_joint_log_proba`` and ``explain`` also read by hashing every column (a
reading that costs about as much as explain itself: explain has 2 x 20 output rows per
input row); and a floor of explain's shape: the rows' values unpivoted to one row per
class and feature. On ``--drift-rows`` rows: the fit, ``drift`` (pooled, ``by_class``, and with
PSI over 10 bins) and the floor of the fit's scan (per class, the count, sum and sum of
squares of every feature in one GROUP BY), whose results are a row per feature or class.

    python benchmarks/bench_explain.py                       # 1M x 20, drift on 5M
    python benchmarks/bench_explain.py --rows 100000 --drift-rows 500000 --repeats 1

Prints a Markdown table; ``--write`` also writes benchmarks/results/explain.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import duckdb

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import sqlnb

DATA_SQL = """
CREATE OR REPLACE TABLE {table} AS
SELECT CAST(i % 2 AS INTEGER) AS y, {columns}
FROM range({rows}) r(i)
"""


def make_table(con: duckdb.DuckDBPyConnection, table: str, rows: int, features: int) -> None:
    """``rows`` rows: feature k is normal, shifted by 0.1 (k + 1) in class 1 (benchmark data,
    made in DuckDB; the names are fixed here, no user input)."""
    con.execute("SELECT setseed(0.25)")
    columns = ", ".join(
        f"sqrt(-2 * ln(random() + 1e-300)) * cos(2 * pi() * random()) + (i % 2) * {0.1 * (k + 1)!r} AS f{k}"
        for k in range(features))
    con.execute(DATA_SQL.format(table=table, rows=rows, columns=columns))


def read_whole(con: duckdb.DuckDBPyConnection, relation: duckdb.DuckDBPyRelation) -> None:
    """Every column hashed."""
    con.execute(f"SELECT bit_xor(hash(COLUMNS(*))) FROM ({relation.sql_query()})").fetchall()


def read_light(con: duckdb.DuckDBPyConnection, relation: duckdb.DuckDBPyRelation) -> None:
    """Every column aggregated: numbers summed, anything else counted (benchmark SQL over
    the relation's own column names, quoted)."""
    numbers = {"DOUBLE", "BIGINT", "INTEGER"}
    aggregates = ", ".join(
        f'{"sum" if str(kind) in numbers else "count"}("{name}")'
        for name, kind in zip(relation.columns, relation.types))
    con.execute(f"SELECT {aggregates} FROM ({relation.sql_query()})").fetchall()


def timed(step) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--drift-rows", type=int, default=5_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--no-warmup", dest="warmup", action="store_false",
                        help="Skip the untimed first round (on a busy machine).")
    args = parser.parse_args()

    load_before = os.getloadavg()
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    make_table(con, "train", args.rows, args.features)
    con.execute("CREATE TABLE rows AS SELECT * EXCLUDE (y) FROM train")
    make_table(con, "big", args.drift_rows, args.features)
    model = sqlnb.NaiveBayes("bench", con=con).fit("train", "y")
    big = sqlnb.NaiveBayes("bench_big", con=con).fit("big", "y")

    moments = ", ".join(f"count(f{k}), sum(f{k}), sum(f{k} * f{k})"
                        for k in range(args.features))
    # explain's shape without its terms: each row's values unpivoted to one row per class
    # and feature, as explain's statement unpivots its terms
    pairs = [(c, k) for c in range(2) for k in range(args.features)]
    unpivoted = (
        "SELECT row_number() OVER () - 1 AS row_number, "
        f"unnest([{', '.join(str(c) for c, _ in pairs)}]) AS class, "
        f"unnest([{', '.join(repr(f'f{k}') for _, k in pairs)}]) AS feature, "
        f"unnest([{', '.join(f'f{k}' for _, k in pairs)}]) AS log_likelihood, "
        f"unnest([{', '.join(f'f{c}' for c, _ in pairs)}]) AS log_prior FROM rows")
    steps = {
        "predict_joint_log_proba":
            lambda: read_light(con, model.predict_joint_log_proba("rows")),
        "explain (every term)":
            lambda: read_light(con, model.explain("rows")),
        "explain(top=3)":
            lambda: read_light(con, model.explain("rows", top=3)),
        "floor: SELECT * of the rows":
            lambda: read_light(con, con.sql("SELECT * FROM rows")),
        "floor: the rows' values unpivoted as explain's terms":
            lambda: read_light(con, con.sql(unpivoted)),
        "predict_joint_log_proba, read by hashing":
            lambda: read_whole(con, model.predict_joint_log_proba("rows")),
        "explain (every term), read by hashing":
            lambda: read_whole(con, model.explain("rows")),
        "fit":
            lambda: sqlnb.NaiveBayes("bench_big", con=con).fit("big", "y"),
        "drift":
            lambda: big.drift("big").fetchall(),
        "drift(by_class=True)":
            lambda: big.drift("big", by_class=True).fetchall(),
        "drift(bins=10)":
            lambda: big.drift("big", bins=10).fetchall(),
        "floor: GROUP BY class, count/sum/sum of squares":
            lambda: con.execute(f"SELECT y, {moments} FROM big GROUP BY y").fetchall(),
    }
    sizes = {name: args.drift_rows if index >= 7 else args.rows
             for index, name in enumerate(steps)}
    if args.warmup:
        for step in steps.values():  # templates compiled, parameters read
            step()
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(args.repeats):
        for name, step in steps.items():
            times[name].append(timed(step))
            print(f"{name}: {times[name][-1]:.2f} s", file=sys.stderr, flush=True)
    load_after = os.getloadavg()

    medians = {name: statistics.median(t) for name, t in times.items()}
    names = list(steps)
    lines = [
        (f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by "
        f"`python benchmarks/bench_explain.py"
        f" --rows {args.rows} --drift-rows {args.drift_rows} --repeats {args.repeats}`: "
        f"{args.features} Gaussian features, 2 classes, DuckDB tables in memory; medians of "
        f"{args.repeats} interleaved rounds{' after a warm-up' if args.warmup else ''}, in one process."),
        "",
        (f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
        f"load average before {load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f}, "
        f"after {load_after[0]:.2f} / {load_after[1]:.2f} / {load_after[2]:.2f}"),
        (f"- DuckDB {duckdb.__version__}, Python {platform.python_version()}, sqlnb "
        f"{sqlnb.__version__} (commit {_commit()})"),
        "",
        "| step | rows | median | runs |",
        "|---|---|---|---|",
    ]
    for name in names:
        runs = ", ".join(f"{t:.2f}" for t in times[name])
        lines.append(f"| {name} | {sizes[name]:,} | {medians[name]:.2f} s | {runs} |")

    def ratio(a: str, b: str) -> str:
        return f"| {a} / {b} | {medians[a] / medians[b]:.2f}x |"

    lines += [
        "",
        "| ratio | value |",
        "|---|---|",
        ratio("explain (every term)", "predict_joint_log_proba"),
        ratio("explain(top=3)", "predict_joint_log_proba"),
        ratio("explain (every term)", "floor: the rows' values unpivoted as explain's terms"),
        ratio("explain (every term), read by hashing", "predict_joint_log_proba, read by hashing"),
        ratio("drift", "fit"),
        ratio("drift(by_class=True)", "fit"),
        ratio("drift(bins=10)", "fit"),
        ratio("drift", "floor: GROUP BY class, count/sum/sum of squares"),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        (HERE / "results" / "explain.md").write_text("# explain and drift\n\n" + text)


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, text=True,
                              capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


if __name__ == "__main__":
    main()
