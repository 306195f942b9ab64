"""``fit_sql`` on Spark: the fit recorded as a dry run (``SparkEngine.rolled_back``) leaves
the catalog as it was, and its script, run on Spark where the model does not exist and run
again (a scheduler's next fit), builds the model ``fit`` builds.

One kind of each shape: a single family, a model of parts (per-group ``family="auto"``)
and a text model, on the capability matrix's rows (``test_matrix.py``), compared with a
model ``fit`` built on the same rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_matrix import CLASSES, KINDS, make_data

import sqlnb
from sqlnb.engines.spark import split_statements
from sqlnb.script import run

pytest.importorskip("pyspark.sql")

SCRIPTED = ["gaussian", "per-group auto", "text multinomial"]


@pytest.fixture(scope="module")
def rows(spark):
    spark.createDataFrame(make_data()).createOrReplaceTempView("ss_rows")
    yield "ss_rows"
    spark.catalog.dropTempView("ss_rows")


def catalog(spark) -> tuple[list[tuple], list[str]]:
    """Every table and view (temporary ones too) and every SQL function of the database."""
    return (sorted(tuple(row) for row in spark.sql("SHOW TABLES").collect()),
            sorted(row[0] for row in spark.sql("SHOW USER FUNCTIONS").collect()))


def proba(model: sqlnb.NaiveBayes, rows: str) -> tuple[list, np.ndarray]:
    """The labels and probabilities of every row, in id order (one Spark job)."""
    got = model.predict_proba(rows).toPandas().sort_values("id")
    labels = model.predict(rows).toPandas().sort_values("id")["prediction"].tolist()
    return labels, got[[f"proba_{c}" for c in CLASSES]].to_numpy()


def assert_same(got: tuple[list, np.ndarray], want: tuple[list, np.ndarray]) -> None:
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=0, atol=1e-9)


@pytest.mark.parametrize("kind", SCRIPTED)
def test_the_script_run_on_spark_and_run_again_builds_the_model_fit_builds(spark, rows, kind):
    spec = KINDS[kind]
    name = "ss_" + kind.replace(" ", "_").replace("-", "_")
    fitted = sqlnb.NaiveBayes(name + "_fit", con=spark, family=spec.family,
                              sql_macros=True, **spec.params).fit(rows, "y", **spec.fit)
    want = proba(fitted, rows)

    # recorded over a stored model (its tables, views and functions) and over a new name
    before = catalog(spark)
    again = fitted.fit_sql(rows, "y", **spec.fit)
    script = sqlnb.NaiveBayes(name, con=spark, family=spec.family,
                              **spec.params).fit_sql(rows, "y", **spec.fit)
    assert catalog(spark) == before
    assert_same(proba(sqlnb.load(spark, name + "_fit"), rows), want)
    for recorded in (again, script):
        assert "BEGIN" not in recorded and "CREATE OR REPLACE FUNCTION" not in recorded
        # it starts by dropping the versions it writes (so that it runs again, below)
        assert "DROP TABLE IF EXISTS" in split_statements(recorded)[0]

    run(spark, script)  # where the model does not exist
    assert_same(proba(sqlnb.load(spark, name), rows), want)
    run(spark, script)  # again: the versions it wrote are replaced
    assert_same(proba(sqlnb.load(spark, name), rows), want)
    run(spark, again)  # the fitted model refitted by its script, twice
    run(spark, again)
    assert_same(proba(sqlnb.load(spark, name + "_fit"), rows), want)
    for model in (name, name + "_fit"):
        sqlnb.load(spark, model).drop()
