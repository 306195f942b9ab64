"""A ``family="auto"`` model's drift on Spark: the batch's aggregate computed once (the
CTE made non-deterministic by the Spark dialect's ``read_once``) beside the same statement
without it (Spark inlines the CTE at both reads and scans the source twice).

One Parquet file of ``--rows`` rows (``--numeric`` doubles and ``--categorical`` strings of
10 values, 2 classes); the model is fitted once, then each variant's ``drift`` is
collected ``--repeat`` times, alternating; medians. Prints a Markdown table::

    python3 benchmarks/bench_spark_drift.py --rows 2000000
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import duckdb

import sqlnb


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--numeric", type=int, default=4)
    parser.add_argument("--categorical", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from pyspark.sql import SparkSession

    work = tempfile.mkdtemp()
    path = os.path.join(work, "rows.parquet")
    numeric = [f"x{i}" for i in range(args.numeric)]
    categorical = [f"c{i}" for i in range(args.categorical)]
    columns = [f"(i % 2) + random() AS {n}" for n in numeric] + [
        f"CAST(hash(i, {j}) % 10 AS VARCHAR) AS {n}" for j, n in enumerate(categorical)]
    duckdb.sql(f"COPY (SELECT {', '.join(columns)}, CAST(i % 2 AS VARCHAR) AS y "
               f"FROM range({args.rows}) r(i)) TO '{path}'")
    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "1")
             .config("spark.sql.warehouse.dir", os.path.join(work, "warehouse")).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    model = sqlnb.NaiveBayes("bench_drift", con=spark, family="auto").fit(path, "y")
    render = model.engine.render

    def twice(template: str, **context):  # the statement without the read_once column
        return render(template, **context).replace(", rand() AS __sqlnb_read_once", "")

    times: dict[str, list[float]] = {"once": [], "twice": []}
    for _ in range(args.repeat):
        for variant in ("once", "twice"):
            model.engine.render = render if variant == "once" else twice  # type: ignore
            start = time.perf_counter()
            model.drift(path).collect()
            times[variant].append(time.perf_counter() - start)
    model.engine.render = render  # type: ignore
    once, again = statistics.median(times["once"]), statistics.median(times["twice"])
    print("| rows | features | aggregate computed once | CTE inlined (two scans) |")
    print("|---|---|---|---|")
    print(f"| {args.rows:,} | {args.numeric} Gaussian + {args.categorical} categorical | "
          f"{once:.2f} s | {again:.2f} s ({again / once:.2f}x) |")
    spark.stop()


if __name__ == "__main__":
    main()
