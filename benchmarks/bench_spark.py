"""Scoring a DuckDB-fitted model in Spark: ``to_sql(dialect="spark")`` on a Parquet file.

Fits a Gaussian model in DuckDB on ``--rows`` rows x ``--features`` doubles x 5 classes,
writes the rows to Parquet, and times, in a fresh Spark session each, the standalone
predict statement with Spark's defaults and with ``spark.sql.codegen.hugeMethodLimit=8000``
(which lets the JVM compile the large generated method), beside DuckDB's ``predict`` of
the same file. Prints a Markdown table::

    python3 benchmarks/bench_spark.py --rows 1000000 --features 20
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    names = [f"x{i}" for i in range(args.features)]
    with tempfile.TemporaryDirectory() as tmp:
        data = pathlib.Path(tmp) / "rows.parquet"
        con = duckdb.connect()
        columns = ", ".join(f"random() * 10 + (i % 5) * {j % 3 + 1} AS {n}"
                            for j, n in enumerate(names))
        con.execute(f"COPY (SELECT {columns}, 'c' || (i % 5) AS y FROM range({args.rows}) "
                    f"AS r(i)) TO '{data}' (FORMAT parquet)")
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
