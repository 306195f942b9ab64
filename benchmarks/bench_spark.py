"""sqlnb on Spark beside DuckDB, on one Parquet file of ``--rows`` rows x ``--features``
doubles x 5 classes (Gaussian).

``--models`` (issue 16): a model that lives on Spark, ``NaiveBayes(con=spark).fit`` and
``predict`` (written to Spark's ``noop`` sink), beside DuckDB's fit and predict (to
Parquet); with the session start. Otherwise: a DuckDB-fitted model's standalone statement
``to_sql(dialect="spark")`` timed in a fresh Spark session with Spark's defaults and with
``spark.sql.codegen.hugeMethodLimit=8000`` (which lets the JVM compile the large generated
method). Prints a Markdown table::

    python3 benchmarks/bench_spark.py --rows 1000000 --features 20
    python3 benchmarks/bench_spark.py --models --rows 1000000 --features 20
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import duckdb

import sqlnb

CHILD = """
import sys, time
from pyspark.sql import SparkSession
builder = SparkSession.builder.master(sys.argv[1]).config("spark.ui.enabled", "false")
if sys.argv[2] != "default":
    builder = builder.config("spark.sql.codegen.hugeMethodLimit", sys.argv[2])
start = time.perf_counter()
spark = builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
started = time.perf_counter() - start
sql = open(sys.argv[3]).read()
times = []
for _ in range(int(sys.argv[4])):
    start = time.perf_counter()
    spark.sql(sql).write.format("noop").mode("overwrite").save()
    times.append(time.perf_counter() - start)
print(started, *times)
"""

# A model that lives on Spark: session start, then fit and predict, each timed.
MODEL_CHILD = """
import sys, time
from pyspark.sql import SparkSession
import sqlnb
start = time.perf_counter()
spark = (SparkSession.builder.master(sys.argv[1]).config("spark.ui.enabled", "false")
         .config("spark.sql.codegen.hugeMethodLimit", "8000")
         .config("spark.sql.warehouse.dir", sys.argv[3]).getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
started = time.perf_counter() - start
times = []
for _ in range(int(sys.argv[4])):
    start = time.perf_counter()
    model = sqlnb.NaiveBayes("bench", con=spark).fit(sys.argv[2], "y")
    fitted = time.perf_counter()
    model.predict(sys.argv[2]).write.format("noop").mode("overwrite").save()
    times += [fitted - start, time.perf_counter() - fitted]
print(started, *times)
"""


def models(args: argparse.Namespace, data: pathlib.Path, tmp: str) -> None:
    """Fit and predict of a model on Spark beside the same in DuckDB."""
    con = duckdb.connect()
    duck = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        model = sqlnb.NaiveBayes("bench", con=con).fit(str(data), "y")
        fitted = time.perf_counter()
        model.predict(str(data)).write_parquet(str(pathlib.Path(tmp) / "out.parquet"))
        duck += [fitted - start, time.perf_counter() - fitted]
    root = pathlib.Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", MODEL_CHILD, args.master, str(data),
         str(pathlib.Path(tmp) / "warehouse"), str(args.repeat)],
        capture_output=True, text=True, check=True, env=env).stdout
    started, *spark = map(float, out.split()[-(1 + 2 * args.repeat):])
    print(f"| {args.rows:,} rows x {args.features} features x 5 classes, runs | DuckDB "
          f"| Spark {args.master} |\n|---|---|---|")
    print(f"| session start | - | {started:.1f} |")
    print("| fit | " + ", ".join(f"{t:.2f}" for t in duck[::2]) + " | "
          + ", ".join(f"{t:.2f}" for t in spark[::2]) + " |")
    print("| predict (all rows written) | " + ", ".join(f"{t:.2f}" for t in duck[1::2])
          + " | " + ", ".join(f"{t:.2f}" for t in spark[1::2]) + " |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--models", action="store_true",
                        help="fit and predict a model on Spark beside DuckDB")
    args = parser.parse_args()
    names = [f"x{i}" for i in range(args.features)]
    with tempfile.TemporaryDirectory() as tmp:
        data = pathlib.Path(tmp) / "rows.parquet"
        con = duckdb.connect()
        columns = ", ".join(f"random() * 10 + (i % 5) * {j % 3 + 1} AS {n}"
                            for j, n in enumerate(names))
        con.execute(f"COPY (SELECT {columns}, 'c' || (i % 5) AS y FROM range({args.rows}) "
                    f"AS r(i)) TO '{data}' (FORMAT parquet)")
        if args.models:
            models(args, data, tmp)
            return
        model = sqlnb.NaiveBayes("bench", con=con, family="gaussian")
        model.fit(str(data), "y")
        start = time.perf_counter()
        model.predict(str(data)).write_parquet(str(pathlib.Path(tmp) / "out.parquet"))
        duckdb_time = time.perf_counter() - start
        statement = pathlib.Path(tmp) / "score.sql"
        statement.write_text(model.to_sql(f"parquet.`{data}`", dialect="spark"))
        print(f"| {args.rows:,} rows x {args.features} features x 5 classes "
              f"| seconds |\n|---|---|")
        print(f"| DuckDB predict (to Parquet) | {duckdb_time:.2f} |")
        for setting in ("default", "8000"):
            out = subprocess.run(
                [sys.executable, "-c", CHILD, args.master, setting, str(statement),
                 str(args.repeat)], capture_output=True, text=True, check=True).stdout
            started, *times = map(float, out.split())
            label = "defaults" if setting == "default" else "hugeMethodLimit=8000"
            print(f"| Spark {args.master} session start ({label}) | {started:.1f} |")
            print(f"| Spark {args.master} to_sql predict ({label}), runs | "
                  + ", ".join(f"{t:.2f}" for t in times) + " |")


if __name__ == "__main__":
    main()
