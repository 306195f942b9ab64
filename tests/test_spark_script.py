"""``fit_sql`` on Spark: the fit recorded as a dry run (``SparkEngine.rolled_back``) leaves
the catalog as it was, and its script, run on Spark where the model does not exist and run
again (a scheduler's next fit), builds the model ``fit`` builds.

One kind of each shape: a single family, a model of parts (per-group ``family="auto"``)
and a text model, on the capability matrix's rows (``test_matrix.py``), compared with a
model ``fit`` built on the same rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import MultinomialNB
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


def test_a_dry_run_after_an_update_scans_its_own_batch(spark):
    """An update leaves its batch table for the next one to overwrite; a fit recorded
    after it must check and read the batch it scans (not refuse nothing because it read
    the update's), and the model must update as before once the recording is over."""
    rng = np.random.default_rng(5)
    counts = pd.DataFrame(rng.integers(0, 5, size=(60, 3)), columns=["a", "b", "c"])
    counts["y"] = rng.integers(0, 3, 60)
    negative = counts.assign(a=counts["a"].where(counts.index != 0, -3))
    spark.createDataFrame(counts).createOrReplaceTempView("ss_counts")
    spark.createDataFrame(negative).createOrReplaceTempView("ss_negative")
    model = sqlnb.NaiveBayes("ss_after_update", con=spark, family="multinomial")
    model.fit("ss_counts", "y").partial_fit("ss_counts", "y")
    with pytest.raises(sqlnb.errors.InvalidDataError, match="negative values"):
        model.fit_sql("ss_negative", "y")
    script = model.fit_sql("ss_counts", "y")
    model.partial_fit("ss_counts", "y")  # three times the rows: the same proportions
    x = counts[["a", "b", "c"]].to_numpy()
    want = MultinomialNB().fit(np.vstack([x] * 3), np.tile(counts["y"], 3))
    got = model.predict_proba("ss_counts").toPandas()
    np.testing.assert_allclose(got[[f"proba_{c}" for c in want.classes_]].to_numpy(),
                               want.predict_proba(x), rtol=0, atol=1e-9)
    run(spark, script)  # the model refitted on the rows once
    once = MultinomialNB().fit(x, counts["y"])
    refitted = sqlnb.load(spark, "ss_after_update").to_sklearn()
    np.testing.assert_allclose(refitted.class_count_, once.class_count_)
    np.testing.assert_allclose(refitted.feature_count_, once.feature_count_)
    sqlnb.load(spark, "ss_after_update").drop()
    for view in ("ss_counts", "ss_negative"):
        spark.catalog.dropTempView(view)
