"""The Spark batch scan's statement shape against ``spark.sql.codegen.maxFields``.

A Gaussian batch scan keeps three fields of aggregation state per feature (a count and
two sums); Spark generates code for a stage whose schema has at most
``spark.sql.codegen.maxFields`` (100) fields, so a scan of more than about 33 features
runs interpreted. This runs the scan's aggregation, written as Spark SQL, in shapes that
keep each aggregation under the limit without touching the session's configuration, side
by side with the one-aggregation shape (and, as the upper bound, that shape with the limit
raised for the run):

    python benchmarks/bench_spark_codegen.py --rows 1000000 --features 50 --repeat 3

Results: benchmarks/RESULTS.md ("Spark batch scan and codegen.maxFields").
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from pyspark.sql import SparkSession


def aggregate(features: range) -> str:
    parts = ", ".join(f"count(x{i}) AS x{i}_n, sum(x{i} - 0.5) AS x{i}_s1, "
                      f"sum((x{i} - 0.5) * (x{i} - 0.5)) AS x{i}_s2" for i in features)
    return f"SELECT y AS class, count(*) AS n, {parts} FROM src WHERE y IS NOT NULL GROUP BY y"


def shapes(n_features: int) -> dict[str, str]:
    half = n_features // 2
    second = ", ".join(f"x{i}_n, x{i}_s1, x{i}_s2" for i in range(half, n_features))
    stack = ", ".join(f"{i}, x{i}" for i in range(n_features))
    return {
        "one aggregation": aggregate(range(n_features)),
        "two aggregations joined on class": (
            f"SELECT * FROM ({aggregate(range(half))}) a JOIN (SELECT class, {second} FROM "
            f"({aggregate(range(half, n_features))})) b USING (class)"),
        "unpivoted (stack), one row per feature": (
            f"SELECT y AS class, f, count(v) AS n, sum(v - 0.5) AS s1, "
            f"sum((v - 0.5) * (v - 0.5)) AS s2 FROM src LATERAL VIEW stack({n_features}, "
            f"{stack}) s AS f, v WHERE y IS NOT NULL GROUP BY y, f"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    spark = (SparkSession.builder.master(args.master).config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", "2g")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    columns = ", ".join(f"rand({i}) + (id % 3) * 0.1 AS x{i}" for i in range(args.features))
    path = tempfile.mkdtemp() + "/src"
    spark.sql(f"SELECT CAST(id % 3 AS STRING) AS y, {columns} FROM range({args.rows})"
              ).write.parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("src")

    def run(query: str) -> tuple[float, list[float], str]:
        times = []
        for _ in range(args.repeat):
            frame = spark.sql(query)
            start = time.perf_counter()
            frame.collect()
            times.append(time.perf_counter() - start)
        # the final plan (after adaptive execution): aggregations in generated code
        plan = frame._jdf.queryExecution().executedPlan().toString()
        generated = sum(1 for line in plan.splitlines()
                        if "HashAggregate" in line and "*(" in line)
        total = sum(1 for line in plan.splitlines() if "HashAggregate" in line)
        return statistics.median(times), times, f"{generated}/{total}"

    queries = shapes(args.features)
    spark.sql(queries["one aggregation"]).collect()  # warm the JVM
    rows = [(name, "default", *run(query)) for name, query in queries.items()]
    limit = 3 * args.features + 10
    spark.conf.set("spark.sql.codegen.maxFields", str(limit))
    rows.append(("one aggregation", f"maxFields={limit}", *run(queries["one aggregation"])))
    spark.conf.unset("spark.sql.codegen.maxFields")
    print(f"{args.rows} rows x {args.features} features, {args.master}, Spark {spark.version}")
    print("| shape | conf | median s | runs | aggregations in generated code |")
    print("| --- | --- | --- | --- | --- |")
    for name, conf, median, times, generated in rows:
        print(f"| {name} | {conf} | {median:.2f} | {' '.join(f'{t:.2f}' for t in times)} "
              f"| {generated} |")


if __name__ == "__main__":
    main()
