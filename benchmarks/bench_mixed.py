"""Fit and score time of a mixed-type model (family="auto") on a Parquet file.

Compares one ``auto`` model with the single-family models it is made of, fitted one by
one on their own columns (what a user would otherwise do). Data goes to
benchmarks/data/ (git-ignored).

Run:  python benchmarks/bench_mixed.py [rows]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

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


def main() -> None:
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
