"""Cross-validated search of a text model: sqlnb against GridSearchCV over
Pipeline([CountVectorizer(), MultinomialNB()]).

20,000 short documents (``benchmarks/common.py``'s ``text``: 30 words drawn from 5,000,
5 classes), 3 values of ``alpha`` x 5 folds, scorer ``accuracy``. sqlnb searches the
Parquet file in place (``cv=5``, hashed folds): one scan for every fold's term statistics,
one scoring scan. scikit-learn gets the documents as a list of strings already in memory
(loading them is not timed) and refits the vectorizer on every training set (15 fits and
15 predictions). Each step runs in its own process; full reads of the file are counted
from DuckDB's file-system log.

Run:  python benchmarks/bench_search_text.py [documents] [step]   (steps: sqlnb, sklearn,
all (default): both, three times, alternating)
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import text  # benchmarks/ is on sys.path (above)

GRID = {"alpha": [0.1, 0.5, 1.0]}
FOLDS = 5


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_sqlnb(path: Path) -> dict:
    import duckdb

    import sqlnb

    con = duckdb.connect()
    con.execute("SET enable_external_file_cache = false")
    con.execute("CALL enable_logging('FileSystem')")
    model = sqlnb.NaiveBayes("bench", con=con, family="multinomial")
    start, cpu = time.perf_counter(), cpu_seconds()
    result = model.search(str(path), "y", text="body", param_grid=GRID, cv=FOLDS,
                          refit=False)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    size = path.stat().st_size
    reads = [b for (b,) in con.execute(
        "SELECT sum(CAST(json_extract_string(message, '$.bytes') AS BIGINT)) "
        "FROM duckdb_logs WHERE type = 'FileSystem' "
        "AND json_extract_string(message, '$.path') = ? "
        "AND json_extract_string(message, '$.op') = 'READ' GROUP BY query_id",
        [str(path)]).fetchall()]
    means = [m for (m,) in result.cv_results_.select("mean_test_score").fetchall()]
    return {"seconds": seconds, "cpu_seconds": cpu, "best": result.best_params_,
            "means": means, "full_reads": sum(b >= 0.5 * size for b in reads)}


def run_sklearn(path: Path) -> dict:
    import pyarrow.parquet as pq
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.model_selection import GridSearchCV, KFold
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import Pipeline

    table = pq.read_table(path)
    documents, y = table["body"].to_pylist(), table["y"].to_numpy()
    search = GridSearchCV(Pipeline([("vec", CountVectorizer()), ("nb", MultinomialNB())]),
                          {f"nb__{k}": v for k, v in GRID.items()}, cv=KFold(FOLDS),
                          scoring="accuracy", refit=False)
    start, cpu = time.perf_counter(), cpu_seconds()
    search.fit(documents, y)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    return {"seconds": seconds, "cpu_seconds": cpu, "best": search.best_params_,
            "means": list(search.cv_results_["mean_test_score"])}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    which = sys.argv[2] if len(sys.argv) > 2 else "all"
    path = text(n)
    if which == "all":
        runs: dict[str, list[dict]] = {"sqlnb": [], "sklearn": []}
        for _ in range(3):
            for step, results in runs.items():
                out = subprocess.run([sys.executable, __file__, str(n), step], check=True,
                                     capture_output=True, text=True).stdout
                print(out.strip())
                results.append(json.loads(out.strip().splitlines()[-1]))
        wall = {s: statistics.median(r["seconds"] for r in runs[s]) for s in runs}
        cpu = {s: statistics.median(r["cpu_seconds"] for r in runs[s]) for s in runs}
        print(f"medians: sqlnb {wall['sqlnb']:.3f} s wall, {cpu['sqlnb']:.2f} s CPU; "
              f"GridSearchCV {wall['sklearn']:.3f} s wall, {cpu['sklearn']:.2f} s CPU; "
              f"ratio {wall['sklearn'] / wall['sqlnb']:.1f}x by wall, "
              f"{cpu['sklearn'] / cpu['sqlnb']:.1f}x by CPU")
        return
    result = run_sklearn(path) if which == "sklearn" else run_sqlnb(path)
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    import duckdb
    print(json.dumps({"step": which, "documents": n, "load": os.getloadavg()[0],
                      "duckdb": duckdb.__version__, **result}))


if __name__ == "__main__":
    main()
