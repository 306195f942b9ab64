"""The Spark SQL function <name>_explain against model.explain, side by side in one
session, and what it adds to a write: the CREATE of the explain function against the
CREATE of the joint log-likelihood function (the two a write that keeps the classes
re-creates). Medians of ``--repeat`` runs; small sizes (the machine is shared).

    PYTHONPATH=. python benchmarks/bench_spark_explain_fn.py --rows 20000 --features 20 50
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time

import numpy as np
import pandas as pd

import sqlnb
from sqlnb.compiler import functions_sql
from sqlnb.engines.spark import split_statements


def median_time(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--features", type=int, nargs="+", default=[20, 50])
    parser.add_argument("--classes", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from pyspark import __version__ as spark_version
    from pyspark.sql import SparkSession

    warehouse = tempfile.mkdtemp(prefix="bench-explain-fn-")  # not the working directory
    spark = (SparkSession.builder.master("local[2]").appName("bench-explain-fn")
             .config("spark.sql.warehouse.dir", warehouse)
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").config("spark.driver.memory", "2g")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()}, pyspark {spark_version}, sqlnb {sqlnb.__version__}")
    print(f"rows {args.rows}, classes {args.classes}, medians of {args.repeat}")
    print("| features | CREATE joint fn (s) | CREATE explain fn (s) | explain fn text (chars) "
          "| explain fn, all rows (s) | model.explain, all rows (s) |")
    print("|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for width in args.features:
        X = rng.normal(size=(args.rows, width)).round(4)
        y = np.arange(args.rows) % args.classes
        X[:, : args.classes] += np.eye(args.classes)[y] * 2
        columns = [f"f{i}" for i in range(width)]
        frame = spark.createDataFrame(pd.DataFrame(X, columns=columns).assign(y=y, id=np.arange(args.rows)))
        frame.cache().count()
        frame.createOrReplaceTempView("bench_rows")
        name = f"bench_xfn_{width}"
        model = sqlnb.NaiveBayes(name, con=spark, family="gaussian").fit(frame, "y", features=columns)
        try:
            statements = split_statements(functions_sql(model.context, joint_only=True))
            joint = next(s for s in statements if "RETURNS ARRAY<DOUBLE>" in s)
            explain = next(s for s in statements if "RETURNS ARRAY<STRUCT<" in s)
            t_joint = median_time(lambda q=joint: spark.sql(q), args.repeat)
            t_explain = median_time(lambda q=explain: spark.sql(q), args.repeat)
            fields = ", ".join(columns)
            query = (f"SELECT count(*), sum(e.log_likelihood) FROM (SELECT {name}_explain("
                     f"struct({fields})) AS terms FROM bench_rows) r LATERAL VIEW inline(r.terms) e")
            t_fn = median_time(lambda q=query: spark.sql(q).collect(), args.repeat)
            t_model = median_time(
                lambda m=model, f=frame: m.explain(f).agg(
                    {"log_likelihood": "sum", "*": "count"}).collect(),
                args.repeat)
            print(f"| {width} | {t_joint:.3f} | {t_explain:.3f} | {len(explain):,} | "
                  f"{t_fn:.2f} | {t_model:.2f} |")
        finally:
            model.drop()
            frame.unpersist()
    print(f"load after: {os.getloadavg()}")
    spark.stop()


if __name__ == "__main__":
    main()
