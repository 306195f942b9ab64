"""What one statistics upsert costs on each engine: the step every partial_fit, forget and
merge repeats, whatever the batch size.

A Gaussian model's statistics (``--classes`` x ``--features`` rows of moments) take a
batch touching every row plus one new class. DuckDB updates its table in place
(``INSERT ... ON CONFLICT DO UPDATE``); Spark writes a new table version from a full outer
join and switches the view to it (``SparkEngine.versioned``). Both render the same
``sql.upsert`` macro. Prints a Markdown table::

    python3 benchmarks/bench_spark_upsert.py --features 20 --classes 5 --repeat 5
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import duckdb

from sqlnb.engines.dialects import DUCKDB, SPARK
from sqlnb.engines.spark import SparkEngine
from sqlnb.templates import environment

COLUMNS = "class, feature, n, weight, mean, m2, n_mean, n_m2"


def rows(classes: int, features: int, offset: float) -> list[tuple]:
    return [(f"c{c}", f"x{f}", 10, 10.0, offset + c + f / 7, 2.5 + f, offset + c, 2.5 + f)
            for c in range(classes) for f in range(features)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--classes", type=int, default=5)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    stored = rows(args.classes, args.features, 0.0)
    batch = rows(args.classes + 1, args.features, 0.5)

    con = duckdb.connect()
    con.execute("CREATE TABLE b_feature_stats (class VARCHAR, feature VARCHAR, n BIGINT, "
                "weight DOUBLE, mean DOUBLE, m2 DOUBLE, n_mean DOUBLE, n_m2 DOUBLE, "
                "PRIMARY KEY (class, feature))")
    con.execute("CREATE TABLE b_batch AS SELECT * FROM b_feature_stats LIMIT 0")
    con.executemany("INSERT INTO b_feature_stats VALUES (?, ?, ?, ?, ?, ?, ?, ?)", stored)
    con.executemany("INSERT INTO b_batch VALUES (?, ?, ?, ?, ?, ?, ?, ?)", batch)
    family = environment(DUCKDB).get_template("families/gaussian.sql").module
    upsert = family.upsert({"feature_stats": '"b_feature_stats"'},
                           f'SELECT {COLUMNS} FROM "b_batch"', 1)
    duckdb_times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        con.execute(upsert)
        duckdb_times.append(time.perf_counter() - start)

    from pyspark.sql import SparkSession

    start = time.perf_counter()
    spark = (SparkSession.builder.master(args.master).config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.warehouse.dir", tempfile.mkdtemp()).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    started = time.perf_counter() - start
    engine = SparkEngine(spark)
    schema = ("class string, feature string, n bigint, weight double, mean double, "
              "m2 double, n_mean double, n_m2 double")
    spark.createDataFrame(batch, schema).write.saveAsTable("b_batch")
    with engine.versioned("b_feature_stats") as new:
        spark.createDataFrame(stored, schema).write.saveAsTable(new.replace("`", ""))
    family = environment(SPARK).get_template("families/gaussian.sql").module
    spark_times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        with engine.versioned("b_feature_stats") as new:
            engine.execute(family.upsert(
                {"feature_stats": engine.table("b_feature_stats"), "next_feature_stats": new},
                f"SELECT {COLUMNS} FROM `b_batch`", 1))
        spark_times.append(time.perf_counter() - start)
    spark.stop()

    print(f"| upsert of {args.classes} x {args.features} Gaussian statistics "
          f"(+1 class) | median s | runs |\n|---|---|---|")
    print(f"| DuckDB, INSERT ... ON CONFLICT | {statistics.median(duckdb_times):.4f} | "
          + ", ".join(f"{t:.4f}" for t in duckdb_times) + " |")
    print(f"| Spark {args.master}, new version + view switch | "
          f"{statistics.median(spark_times):.2f} | "
          + ", ".join(f"{t:.2f}" for t in spark_times) + " |")
    print(f"| Spark {args.master} session start | {started:.1f} | |")


if __name__ == "__main__":
    main()
