"""Fit and score time of a mixed-type model (family="auto") on a Parquet file.

Compares one ``auto`` model with the single-family models it is made of, fitted one by
one on their own columns (what a user would otherwise do). Data goes to
benchmarks/data/ (git-ignored).

Run:  python benchmarks/bench_mixed.py [rows]
      python benchmarks/bench_mixed.py parts [repeats]   (width and cardinality cases)
      python benchmarks/bench_mixed.py versions <tree> [repeats]
          (the parts cases, this tree's sqlnb against the one in <tree>, e.g. a
          `git archive` of an earlier commit: one worker process each, every call
          alternated between them, so both see the same load)
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import sqlnb

DATA = Path(__file__).resolve().parent / "data"


def make(path: Path, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    columns = {"y": y}
    for i in range(6):
        x = rng.normal(y * (i % 3), 1.0 + i * 0.1)
        columns[f"f{i}"] = pa.array(x, mask=rng.random(n) < 0.02)
    for i in range(3):
        columns[f"s{i}"] = pa.array(np.array(list("abcdefgh"))[(rng.integers(0, 6, n) + y) % 8])
    for i in range(3):
        columns[f"b{i}"] = rng.random(n) < 0.3 + 0.2 * y
    for i in range(3):
        columns[f"k{i}"] = rng.poisson(1.0 + y * (i + 1) * 0.5)
    pq.write_table(pa.table(columns), path)


def timed(fn, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


# ------------------------------------------------------------------ width and cardinality
# Two cases of the "one model, many parts" targets, each measured side by side in one run:
# * width: 200 columns (100 DOUBLE, 100 VARCHAR of 20 categories), 20,000 rows, 5 classes:
#   family="auto" predict_proba against the Gaussian model of the 100 numeric columns and
#   against reading the rows (both fetched as Arrow);
# * cardinality: 50,000 rows, 5 DOUBLE columns and one VARCHAR of 50,000 values against
#   the same table with a 20-value column: fit + predict_proba (family="auto").


def make_width(path: Path, n: int = 20_000, width: int = 100, k: int = 5) -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, k, n)
    columns = {"y": y}
    for i in range(width):
        columns[f"f{i}"] = rng.normal(y * (i % 3), 1.0)
    names = np.array([f"c{j}" for j in range(20)])
    for i in range(width):
        columns[f"s{i}"] = names[(rng.integers(0, 15, n) + y) % 20]
    pq.write_table(pa.table(columns), path)


def make_cardinality(path: Path, distinct: int, n: int = 50_000, k: int = 3) -> None:
    rng = np.random.default_rng(1)
    y = rng.integers(0, k, n)
    columns = {"y": y}
    for i in range(5):
        columns[f"f{i}"] = rng.normal(y, 1.0)
    codes = rng.permutation(n) if distinct >= n else rng.integers(0, distinct, n)
    columns["s"] = np.array([f"v{j}" for j in codes])
    pq.write_table(pa.table(columns), path)


def arrow(relation: Any) -> Any:
    """The whole result as an Arrow table (DuckDB 2.0's ``arrow()`` is a lazy reader)."""
    fetch = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    return fetch()


def median_of(fns: dict[str, Any], repeat: int) -> dict[str, float]:
    """Each function's median time, the calls interleaved (one of each per round)."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(values) for name, values in times.items()}


def parts_cases(repeat: int = 5) -> None:
    DATA.mkdir(exist_ok=True)
    wide = DATA / "mixed_width_20000.parquet"
    if not wide.exists():
        make_width(wide)
    con = duckdb.connect()
    numeric = [f"f{i}" for i in range(100)]
    auto = sqlnb.NaiveBayes("auto_wide", con=con, family="auto").fit(str(wide), "y")
    gauss = sqlnb.NaiveBayes("gauss_wide", con=con).fit(str(wide), "y", features=numeric)
    src = str(wide)
    width = median_of({
        "read the rows": lambda: arrow(con.sql(f"SELECT * FROM read_parquet('{src}')")),
        "Gaussian, 100 numeric columns": lambda: arrow(gauss.predict_proba(src)),
        "family='auto', 200 columns": lambda: arrow(auto.predict_proba(src)),
    }, repeat)
    print("width: predict_proba, 20,000 rows x 200 columns (100 DOUBLE, 100 VARCHAR of "
          "20 categories), 5 classes; medians of", repeat)
    for name, seconds in width.items():
        print(f"  {name:32s} {seconds:7.3f} s")
    mixed = width["family='auto', 200 columns"]
    print(f"  auto / Gaussian {mixed / width['Gaussian, 100 numeric columns']:.2f}x, "
          f"auto / reading {mixed / width['read the rows']:.2f}x")
    sources = {}
    for distinct in (20, 50_000):
        path = DATA / f"mixed_cardinality_{distinct}.parquet"
        if not path.exists():
            make_cardinality(path, distinct)
        sources[distinct] = str(path)

    def fit_predict(distinct: int) -> None:
        model = sqlnb.NaiveBayes(f"card_{distinct}", con=con, family="auto")
        model.fit(sources[distinct], "y")
        arrow(model.predict_proba(sources[distinct]))

    card = median_of({f"{d:,} values": (lambda d=d: fit_predict(d)) for d in sources}, repeat)
    print("cardinality: fit + predict_proba, 50,000 rows, 5 DOUBLE + 1 VARCHAR column, "
          "3 classes; medians of", repeat)
    for name, seconds in card.items():
        print(f"  {name:32s} {seconds:7.3f} s")
    print(f"  50,000 / 20 values {card['50,000 values'] / card['20 values']:.2f}x")


# ------------------------------------------------------------------ two versions, one run
def parts_steps() -> dict[str, Any]:
    """The parts cases' calls, each a function of no argument (the models fitted once)."""
    DATA.mkdir(exist_ok=True)
    wide = DATA / "mixed_width_20000.parquet"
    if not wide.exists():
        make_width(wide)
    src = str(wide)
    con = duckdb.connect()
    auto = sqlnb.NaiveBayes("auto_wide", con=con, family="auto").fit(src, "y")
    gauss = sqlnb.NaiveBayes("gauss_wide", con=con).fit(
        src, "y", features=[f"f{i}" for i in range(100)])
    sources = {}
    for distinct in (20, 50_000):
        path = DATA / f"mixed_cardinality_{distinct}.parquet"
        if not path.exists():
            make_cardinality(path, distinct)
        sources[distinct] = str(path)

    def fit_predict(distinct: int) -> None:
        model = sqlnb.NaiveBayes(f"card_{distinct}", con=con, family="auto")
        model.fit(sources[distinct], "y")
        arrow(model.predict_proba(sources[distinct]))

    return {
        "read the rows": lambda: arrow(con.sql(f"SELECT * FROM read_parquet('{src}')")),
        "Gaussian, 100 numeric columns": lambda: arrow(gauss.predict_proba(src)),
        "family='auto', 200 columns": lambda: arrow(auto.predict_proba(src)),
        "fit + predict, 20 values": lambda: fit_predict(20),
        "fit + predict, 50,000 values": lambda: fit_predict(50_000),
    }


def worker() -> None:
    """Serve the parts cases' calls: a step's name in, its seconds out (one line each)."""
    steps = parts_steps()
    for fn in steps.values():  # warm up: templates compiled, files cached
        fn()
    print("ready", flush=True)
    for line in sys.stdin:
        fn = steps[line.strip()]
        c0, t0 = cpu_seconds(), time.perf_counter()
        fn()
        print(time.perf_counter() - t0, cpu_seconds() - c0, flush=True)


def cpu_seconds() -> float:
    """The process's CPU time (DuckDB's threads included): under a heavy load a call's
    wall time is mostly waiting for a core, its CPU time much less so."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def versions(other: str, repeat: int) -> None:
    """The parts cases under this tree's sqlnb and under ``other``'s, alternated call by
    call (medians of ``repeat``): the two versions measured under the same load."""
    here = str(Path(__file__).resolve().parents[1])
    trees = {"base": str(Path(other).resolve()), "branch": here}
    workers = {}
    for name, tree in trees.items():
        env = {**os.environ, "PYTHONPATH": tree}
        workers[name] = subprocess.Popen(
            [sys.executable, __file__, "worker"], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert workers[name].stdout.readline().strip() == "ready"
    names = ["read the rows", "Gaussian, 100 numeric columns", "family='auto', 200 columns",
             "fit + predict, 20 values", "fit + predict, 50,000 values"]
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(repeat):
        for step in names:
            for version, proc in workers.items():
                proc.stdin.write(step + "\n")
                proc.stdin.flush()
                wall, cpu = map(float, proc.stdout.readline().split())
                times.setdefault((version, step), []).append((wall, cpu))
    for proc in workers.values():
        proc.stdin.close()
        proc.wait()
    print(f"DuckDB {duckdb.__version__}, medians of {repeat}, each call alternated between "
          f"base ({trees['base']}) and branch")
    for i, kind in enumerate(("wall", "CPU")):
        med = {key: statistics.median(v[i] for v in values) for key, values in times.items()}
        print(f"{kind} time:\n  {'step':34s} {'base':>8s} {'branch':>8s}")
        for step in names:
            print(f"  {step:34s} {med[('base', step)]:7.3f}s {med[('branch', step)]:7.3f}s")
        for version in workers:
            auto = med[(version, "family='auto', 200 columns")]
            cardinality = (med[(version, "fit + predict, 50,000 values")]
                           / med[(version, "fit + predict, 20 values")])
            print(f"  {version}: auto / Gaussian "
                  f"{auto / med[(version, 'Gaussian, 100 numeric columns')]:.2f}x, "
                  f"auto / reading {auto / med[(version, 'read the rows')]:.2f}x, "
                  f"50,000 / 20 values {cardinality:.2f}x")


def main() -> None:
    if sys.argv[1:2] == ["worker"]:
        worker()
        return
    if sys.argv[1:2] == ["versions"]:
        versions(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 5)
        return
    if sys.argv[1:2] == ["parts"]:
        parts_cases(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    DATA.mkdir(exist_ok=True)
    path = DATA / f"mixed_{n}.parquet"
    if not path.exists():
        make(path, n)
    src = str(path)
    con = duckdb.connect()
    families = {f"k{i}": "poisson" for i in range(3)}
    groups = {
        "gaussian": [f"f{i}" for i in range(6)],
        "categorical": [f"s{i}" for i in range(3)],
        "bernoulli": [f"b{i}" for i in range(3)],
        "poisson": [f"k{i}" for i in range(3)],
    }
    auto = sqlnb.NaiveBayes("auto", con=con, family="auto", families=families)
    t_auto = timed(lambda: auto.fit(src, "y"))
    singles = {fam: sqlnb.NaiveBayes(f"single_{fam}", con=con, family=fam) for fam in groups}
    t_single = timed(lambda: [m.fit(src, "y", features=groups[fam])
                              for fam, m in singles.items()])
    t_score = timed(lambda: con.sql(auto.score_sql(f"read_parquet('{src}')", "proba", []))
                    .aggregate("sum(proba_0)").fetchall())
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    print(f"rows={n:,} threads={threads} cores={os.cpu_count()} DuckDB {duckdb.__version__}")
    print(f"fit family='auto' (15 columns, 4 families): {t_auto:.2f} s")
    print(f"fit 4 single-family models one by one:     {t_single:.2f} s")
    print(f"predict_proba family='auto':               {t_score:.2f} s")


if __name__ == "__main__":
    main()
