"""explain on Spark: the template of sql/reports/explain.sql in the Spark dialect, against the same
model's explanation on DuckDB (1e-9). Every Spark test shares the session of conftest.py."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlnb

pytest.importorskip("pyspark.sql")

FEATURES = ["x0", "x1", "x2"]
_rng = np.random.default_rng(21)
X = _rng.integers(0, 4, size=(24, 3))
Y = np.array(["a", "b", "c"] * 8)
X[Y == "b", 0] += 2
X[Y == "c", 2] += 3
ROWS = [(i, *map(int, x), y) for i, (x, y) in enumerate(zip(X, Y))]
COLUMNS = ["id", *FEATURES, "y"]
SCHEMA = "id bigint, x0 bigint, x1 bigint, x2 bigint, y string"


@pytest.fixture(scope="module")
def rows(spark):
    return spark.createDataFrame(ROWS, SCHEMA).coalesce(1)


@pytest.fixture
def duck():
    con = duckdb.connect()
    con.register("frame", pd.DataFrame(ROWS, columns=COLUMNS))
    con.execute("CREATE TABLE t AS SELECT * FROM frame")
    return con


def _same(got, expected, keys):
    """Rows equal on their first ``keys`` fields, the other doubles within 1e-9."""
    assert len(got) == len(expected) > 0
    for a, b in zip(got, expected):
        assert tuple(a[:keys]) == tuple(b[:keys])
        for x, y in zip(a[keys:], b[keys:]):
            if isinstance(y, float):
                assert x == pytest.approx(y, rel=1e-9, abs=1e-9)
            else:
                assert x == y


@pytest.mark.parametrize("family", ["gaussian", "multinomial", "bernoulli", "categorical",
                                    "poisson"])
def test_explain_on_spark_is_duckdbs(spark, rows, duck, family):
    model = sqlnb.NaiveBayes(f"ex_{family}", con=spark, family=family).fit(
        rows, "y", features=FEATURES)
    oracle = sqlnb.NaiveBayes("d", con=duck, family=family).fit("t", "y", features=FEATURES)
    got = model.explain(rows).orderBy("row_number", "class", "feature").collect()
    expected = oracle.explain("t").order("row_number, class, feature").fetchall()
    _same(got, expected, keys=3)
    got = model.explain(rows, top=2).collect()
    expected = oracle.explain("t", top=2).fetchall()
    _same([(r[0], r[1], r[2], r[4], r[5], r[6]) for r in got],
          [(r[0], r[1], r[2], r[4], r[5], r[6]) for r in expected], keys=3)


def test_to_sql_explain_in_spark_sql_is_duckdbs(spark, rows, duck):
    """A DuckDB model's explanation written in Spark SQL, run there."""
    oracle = sqlnb.NaiveBayes("d", con=duck).fit("t", "y", features=FEATURES)
    rows.createOrReplaceTempView("explain_rows")
    got = spark.sql(oracle.to_sql("explain_rows", output="explain", dialect="spark")) \
        .orderBy("row_number", "class", "feature").collect()
    expected = oracle.explain("t").order("row_number, class, feature").fetchall()
    _same(got, expected, keys=3)


def _tops(row):
    """A drift row with its batch_top and model_top as lists of (category, share)."""
    def pairs(top):
        return None if top is None else [(c["category"], round(c["share"], 12)) for c in top]
    return (*row[:11], pairs(row[11]), pairs(row[12]))


@pytest.mark.parametrize("family", ["gaussian", "poisson", "bernoulli", "categorical"])
def test_drift_on_spark_is_duckdbs(spark, rows, duck, family):
    """drift (pooled and by class, with and without PSI bins) on a Spark model, against
    the same model's on DuckDB: categories counted by grouping sets there, by histograms
    here."""
    model = sqlnb.NaiveBayes(f"dr_{family}", con=spark, family=family).fit(
        rows, "y", features=FEATURES)
    oracle = sqlnb.NaiveBayes("d", con=duck, family=family).fit("t", "y", features=FEATURES)
    shifted = rows.selectExpr("id", "x0 + 1 AS x0", "x1", "x2 * 2 AS x2", "y")
    duck.execute("CREATE TABLE shifted AS SELECT id, x0 + 1 AS x0, x1, x2 * 2 AS x2, y FROM t")
    for source, table in ((rows, "t"), (shifted, "shifted")):
        for by_class, bins in ((False, None), (True, 10)):
            got = model.drift(source, by_class=by_class, bins=bins).collect()
            expected = oracle.drift(table, by_class=by_class, bins=bins).fetchall()
            _same([_tops(r) for r in got], [_tops(r) for r in expected], keys=3)
            if family == "categorical":
                assert any(r[11] for r in expected)  # the top categories were compared
                assert all(r[2] == "psi" for r in expected)
