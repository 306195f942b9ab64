"""An export is engine-neutral: Spark reads its Parquet files as DuckDB wrote them.

The files are what the Spark engine imports, so Spark must read every
statistic to the bit, with plain Spark types, and in the stored row order. One local
SparkSession, shared with the other Spark tests, serves the module.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil

import pytest

import sqlnb

pyspark = pytest.importorskip("pyspark")
if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
    pytest.skip("Spark needs a Java runtime (17 or newer)", allow_module_level=True)
from pyspark.sql import types as T

PLAIN_TYPES = (T.BooleanType, T.IntegerType, T.LongType, T.DoubleType, T.StringType, T.DateType)


# `spark`: the session shared by every Spark test (tests/conftest.py)


def bits(rows):
    return [tuple(v.hex() if isinstance(v, float) else v for v in row) for row in rows]


def test_spark_reads_every_exported_statistic_bit_for_bit(spark, con, tmp_path):
    # a mixed model (every part's table), with DATE labels and a missing value
    con.execute("CREATE TABLE t AS SELECT DATE '2024-01-01' + INTERVAL (i % 3) DAY AS y, "
                "CASE WHEN i = 4 THEN NULL ELSE i / 7 + (i % 3) * 1e6 END AS spend, "
                "['a', 'b', 'c'][i % 3 + 1] AS plan, i % 2 = 0 AS autopay, i % 5 AS calls "
                "FROM range(40) r(i)")
    con.execute("CREATE OR REPLACE TABLE t AS SELECT CAST(y AS DATE) AS y, * EXCLUDE (y) FROM t")
    model = sqlnb.NaiveBayes("churn", con=con, family="auto", families={"calls": "poisson"})
    folder = model.fit("t", "y").export(tmp_path / "churn")
    manifest = json.loads((folder / "model.json").read_text())
    roles = [table["role"] for table in manifest["tables"]]
    assert roles == ["class_stats", "features", "gaussian_stats", "bernoulli_stats",
                     "categorical_stats", "poisson_stats"]
    for table in manifest["tables"]:
        frame = spark.read.parquet(str(folder / table["file"]))
        assert frame.columns == [c["name"] for c in table["columns"]]
        assert all(isinstance(f.dataType, PLAIN_TYPES) for f in frame.schema.fields)
        name = sqlnb.engines.dialects.DUCKDB.ident(f"churn_{table['role']}")
        expected = con.execute(f"SELECT * FROM {name} ORDER BY rowid").fetchall()
        assert bits(tuple(row) for row in frame.collect()) == bits(expected)
    labels = spark.read.parquet(str(folder / "class_stats.parquet")).select("class").collect()
    assert [row[0] for row in labels] == [datetime.date(2024, 1, d) for d in (1, 2, 3)]
