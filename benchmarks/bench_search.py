"""Cross-validated search: sqlnb's two-scan search against GridSearchCV.

Gaussian naive Bayes, 20 DOUBLE features, 3 classes, 8 values of ``var_smoothing`` x 5
folds. sqlnb searches the Parquet file in place; scikit-learn's ``GridSearchCV`` gets the
arrays already in memory (loading them is not timed). The scans of the source are counted
from DuckDB's file-system log: per query, the bytes read from the Parquet file (a query
that reads most of the file is a scan; the Gaussian pilot reads the first row group
only). DuckDB's external file cache is switched off so that every read reaches the log.

Run:  python benchmarks/bench_search.py [rows] [step]   (default 500000 rows, every step; the
data goes to benchmarks/data/, or to the folder named by SQLNB_BENCH_DATA, e.g. /tmp for the
5M-row memory check: ``SQLNB_BENCH_DATA=/tmp python benchmarks/bench_search.py 5000000 sqlnb``)

Steps: ``sqlnb`` (a fresh process's first search: it also compiles the SQL templates),
``sqlnb-warm`` (a search after a small one), ``sqlnb-refit``, ``sklearn``. Each step reports
its wall time and its CPU time (user + system, all threads): on a shared
machine the CPU time moves less with the other load than the wall time does.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import sqlnb

DATA = Path(os.environ.get("SQLNB_BENCH_DATA") or Path(__file__).resolve().parent / "data")
FEATURES = [f"x{i}" for i in range(20)]
GRID = {"var_smoothing": [1e-11, 1e-9, 1e-7, 1e-5, 1e-3, 1e-2, 1e-1, 1.0]}
FOLDS = 5


def make(path: Path, n: int, seed: int = 0, chunk: int = 491_520) -> None:
    """Three classes, feature i's mean 0.3 * class * (i % 4); written chunk by chunk so
    that large files need little memory."""
    rng = np.random.default_rng(seed)
    writer = None
    for start in range(0, n, chunk):
        y = rng.integers(0, 3, min(chunk, n - start))
        columns = {"y": y}
        for i, name in enumerate(FEATURES):
            columns[name] = rng.normal(0.3 * y * (i % 4), 1.0 + 0.05 * i)
        table = pa.table(columns)
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table, row_group_size=122_880)
    writer.close()


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def scans(con: duckdb.DuckDBPyConnection, path: Path) -> list[int]:
    """Bytes read from ``path`` by each query since logging was switched on."""
    rows = con.execute(
        "SELECT query_id, sum(CAST(json_extract_string(message, '$.bytes') AS BIGINT)) "
        "FROM duckdb_logs WHERE type = 'FileSystem' "
        "AND json_extract_string(message, '$.path') = ? "
        "AND json_extract_string(message, '$.op') = 'READ' GROUP BY query_id ORDER BY query_id",
        [str(path)]).fetchall()
    return [int(b) for _, b in rows]


def warm_up(path: Path) -> None:
    """One small search first (the first 2,000 rows), so that the measured one finds the
    SQL templates compiled, as every search but a process's first does."""
    rows = pq.ParquetFile(path).read_row_group(0).slice(0, 2000)
    sqlnb.NaiveBayes("warm", con=duckdb.connect(), family="gaussian").search(
        rows, "y", features=FEATURES, param_grid=GRID, cv=FOLDS, refit=False)


def run_sqlnb(path: Path, refit: bool, warm: bool = False) -> dict:
    if warm:
        warm_up(path)
    con = duckdb.connect()
    con.execute("SET enable_external_file_cache = false")
    con.execute("CALL enable_logging('FileSystem')")
    model = sqlnb.NaiveBayes("bench", con=con, family="gaussian")
    start, cpu = time.perf_counter(), cpu_seconds()
    result = model.search(str(path), "y", features=FEATURES, param_grid=GRID, cv=FOLDS,
                          scoring="accuracy", refit=refit)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    size = path.stat().st_size
    per_query = scans(con, path)
    return {
        "seconds": seconds,
        "cpu_seconds": cpu,
        "best": result.best_params_,
        "full_scans": sum(b >= 0.5 * size for b in per_query),
        "partial_reads": sum(b < 0.5 * size for b in per_query),
        "bytes_read_mib": sum(per_query) / 2**20,
        "file_mib": size / 2**20,
    }


def run_sklearn(path: Path) -> dict:
    from sklearn.model_selection import GridSearchCV, KFold
    from sklearn.naive_bayes import GaussianNB

    table = pq.read_table(path)
    X = np.column_stack([table[c].to_numpy() for c in FEATURES])
    y = table["y"].to_numpy()
    search = GridSearchCV(GaussianNB(), GRID, cv=KFold(FOLDS), scoring="accuracy", refit=False)
    start, cpu = time.perf_counter(), cpu_seconds()
    search.fit(X, y)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    return {"seconds": seconds, "cpu_seconds": cpu, "best": search.best_params_}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500_000
    DATA.mkdir(exist_ok=True)
    path = DATA / f"search_{n}.parquet"
    if not path.exists():
        make(path, n)
    which = sys.argv[2] if len(sys.argv) > 2 else "all"
    if which == "all":  # each measurement in its own process: its own peak RSS
        import subprocess
        results = {}
        for step in ("sqlnb", "sqlnb-warm", "sqlnb-refit", "sklearn"):
            out = subprocess.run([sys.executable, __file__, str(n), step], check=True,
                                 capture_output=True, text=True).stdout
            print(out.strip())
            results[step] = json.loads(out.strip().splitlines()[-1])
        reference = results["sklearn"]
        for step in ("sqlnb", "sqlnb-warm"):
            ours = results[step]
            print(f"{step}: {ours['full_scans']} full reads of the file; GridSearchCV / sqlnb: "
                  f"{reference['cpu_seconds'] / ours['cpu_seconds']:.1f}x by CPU, "
                  f"{reference['seconds'] / ours['seconds']:.1f}x by wall time")
        return
    if which == "sklearn":
        result = run_sklearn(path)
    else:
        result = run_sqlnb(path, refit=which == "sqlnb-refit", warm=which == "sqlnb-warm")
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"step": which, "rows": n, "cpus": os.cpu_count(), "duckdb": duckdb.__version__,
                      "load": os.getloadavg()[0], **result}))


if __name__ == "__main__":
    main()
