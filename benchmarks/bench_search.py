"""Cross-validated search (issue 13): sqlnb's two-scan search against GridSearchCV.

Gaussian naive Bayes, 20 DOUBLE features, 3 classes, 8 values of ``var_smoothing`` x 5
folds. sqlnb searches the Parquet file in place; scikit-learn's ``GridSearchCV`` gets the
arrays already in memory (loading them is not timed). The scans of the source are counted
from DuckDB's file-system log: per query, the bytes read from the Parquet file (a query
that reads most of the file is a scan; the Gaussian pilot reads the first row group
only). DuckDB's external file cache is switched off so that every read reaches the log.

Run:  python benchmarks/bench_search.py [rows]      (default 500000; data in benchmarks/data/)
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

DATA = Path(__file__).resolve().parent / "data"
FEATURES = [f"x{i}" for i in range(20)]
GRID = {"var_smoothing": [1e-11, 1e-9, 1e-7, 1e-5, 1e-3, 1e-2, 1e-1, 1.0]}
FOLDS = 5


def make(path: Path, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    columns = {"y": y}
    for i, name in enumerate(FEATURES):
        columns[name] = rng.normal(0.3 * y * (i % 4), 1.0 + 0.05 * i)
    pq.write_table(pa.table(columns), path, row_group_size=122_880)


def scans(con: duckdb.DuckDBPyConnection, path: Path) -> list[int]:
    """Bytes read from ``path`` by each query since logging was switched on."""
    rows = con.execute(
        "SELECT query_id, sum(CAST(json_extract_string(message, '$.bytes') AS BIGINT)) "
        "FROM duckdb_logs WHERE type = 'FileSystem' "
        "AND json_extract_string(message, '$.path') = ? "
        "AND json_extract_string(message, '$.op') = 'READ' GROUP BY query_id ORDER BY query_id",
        [str(path)]).fetchall()
    return [int(b) for _, b in rows]


def run_sqlnb(path: Path, refit: bool) -> dict:
    con = duckdb.connect()
    con.execute("SET enable_external_file_cache = false")
    con.execute("CALL enable_logging('FileSystem')")
    model = sqlnb.NaiveBayes("bench", con=con, family="gaussian")
    start = time.perf_counter()
    result = model.search(str(path), "y", features=FEATURES, param_grid=GRID, cv=FOLDS,
                          scoring="accuracy", refit=refit)
    seconds = time.perf_counter() - start
    size = path.stat().st_size
    per_query = scans(con, path)
    return {
        "seconds": seconds,
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
    start = time.perf_counter()
    search.fit(X, y)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "best": search.best_params_}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500_000
    DATA.mkdir(exist_ok=True)
    path = DATA / f"search_{n}.parquet"
    if not path.exists():
        make(path, n)
    which = sys.argv[2] if len(sys.argv) > 2 else "all"
    if which == "all":  # each measurement in its own process: its own peak RSS
        import subprocess
        for step in ("sqlnb", "sqlnb-refit", "sklearn"):
            out = subprocess.run([sys.executable, __file__, str(n), step], check=True,
                                 capture_output=True, text=True).stdout
            print(out.strip())
        return
    if which == "sklearn":
        result = run_sklearn(path)
    else:
        result = run_sqlnb(path, refit=which == "sqlnb-refit")
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"step": which, "rows": n, "cpus": os.cpu_count(), **result}))


if __name__ == "__main__":
    main()
