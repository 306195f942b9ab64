"""Every kind of model on Spark: per-group models (one family or ``family="auto"``) and
``family="auto"`` models fit, update (``partial_fit``, ``forget``, ``merge``) and score on
Spark from the same templates as on DuckDB.

The oracles: the same calls on DuckDB (labels identical, probabilities within 1e-9) and,
for the wide model, scikit-learn. Every Spark test shares one local session (the ``spark``
fixture of conftest.py); the tables are tiny, the writes few (each costs seconds on Spark).
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import GaussianNB

import sqlnb

pytest.importorskip("pyspark.sql")

_rng = np.random.default_rng(7)
N = 48
FRAME = pd.DataFrame({
    "id": np.arange(N),
    "g": _rng.choice(["u", "v", "w"], N),
    "x0": _rng.integers(0, 4, N),
    "x1": _rng.integers(0, 4, N),
    "x2": _rng.normal(size=N).round(3),
    "colour": _rng.choice(["red", "green"], N),
    "y": _rng.choice(["a", "b", "c"], N),
})
FRAME.loc[FRAME.y == "b", "x0"] += 2  # the classes differ: the labels are not all one
FRAME.loc[FRAME.y == "c", "x2"] += 1.5
# the batches of the updates (fit, partial_fit, forget a part of the first, merge), and the
# rows of all groups but one
PARTS = {"fit": "id < 24", "more": "id >= 24 AND id < 36", "less": "id < 6",
         "other": "id >= 36", "seen": "g <> 'w'"}


@pytest.fixture(scope="module")
def frame(spark):
    return spark.createDataFrame(FRAME)


@pytest.fixture
def kinds_duck():
    con = duckdb.connect()
    con.register("frame", FRAME)
    con.execute("CREATE TABLE t AS SELECT * FROM frame")
    for name, where in PARTS.items():
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM t WHERE {where}")
    return con


def _same_answers(spark_model, duck_model, frame) -> None:
    """Spark's labels are DuckDB's and its probabilities within 1e-9, row by row."""
    got = spark_model.predict_proba(frame).toPandas().sort_values("id")
    expected = duck_model.predict_proba("t").df().sort_values("id")
    assert list(got.columns) == list(expected.columns)
    labels = spark_model.predict(frame).select("id", "prediction").toPandas().sort_values("id")
    assert list(labels["prediction"]) == \
        list(duck_model.predict("t").df().sort_values("id")["prediction"])
    probas = [c for c in expected.columns if c.startswith("proba_")]
    assert len(probas) == 3
    np.testing.assert_allclose(got[probas].to_numpy(), expected[probas].to_numpy(),
                               rtol=0, atol=1e-9)


@pytest.mark.parametrize("family", ["gaussian", "multinomial", "bernoulli", "complement",
                                    "poisson", "categorical"])
def test_a_per_group_model_fits_and_scores_on_spark_as_on_duckdb(spark, frame, kinds_duck, family):
    features = ["x0", "x1"]
    # fitted without the group w: its rows are scored by the pooled model
    model = sqlnb.NaiveBayes(f"sk_group_{family}", con=spark, family=family).fit(
        frame.where(PARTS["seen"]), "y", features=features, group_by="g")
    oracle = sqlnb.NaiveBayes("d", con=kinds_duck, family=family).fit(
        "seen", "y", features=features, group_by="g")
    _same_answers(model, oracle, frame)


@pytest.mark.parametrize("kind", ["auto", "per_group", "per_group_auto"])
def test_partial_fit_forget_and_merge_on_spark_update_as_on_duckdb(spark, frame, kinds_duck, kind):
    family = "multinomial" if kind == "per_group" else "auto"
    features = ["x0", "x1"] if kind == "per_group" else ["x0", "x2", "colour"]
    options = {"group_by": "g"} if kind != "auto" else {}
    name = f"sk_update_{kind}"
    model = sqlnb.NaiveBayes(name, con=spark, family=family).fit(
        frame.where(PARTS["fit"]), "y", features=features, **options)
    oracle = sqlnb.NaiveBayes("d", con=kinds_duck, family=family).fit(
        "fit", "y", features=features, **options)
    _same_answers(model, oracle, frame)
    model.partial_fit(frame.where(PARTS["more"]), "y")
    oracle.partial_fit("more", "y")
    _same_answers(model, oracle, frame)
    model.forget(frame.where(PARTS["less"]), "y")
    oracle.forget("less", "y")
    _same_answers(model, oracle, frame)
    other = sqlnb.NaiveBayes(name + "_other", con=spark, family=family).fit(
        frame.where(PARTS["other"]), "y", features=features, **options)
    model.merge(other)
    oracle.merge(sqlnb.NaiveBayes("d_other", con=kinds_duck, family=family).fit(
        "other", "y", features=features, **options))
    _same_answers(model, oracle, frame)
    assert sqlnb.load(spark, name).spec.grouped == (kind != "auto")


def test_a_wide_model_scores_on_spark_as_on_duckdb_and_scikit_learn(spark):
    """500 features x 10 classes: Spark scores it with one compiled expression per class
    (it has no list lambdas), DuckDB with its list functions; both within 1e-9 of
    scikit-learn."""
    rng = np.random.default_rng(500)
    X = rng.normal(size=(60, 500)).round(4)
    y = np.arange(60) % 10
    X[:, :10] += np.eye(10)[y] * 3  # each class stands out in one column
    columns = [f"f{i}" for i in range(500)]
    data = pd.DataFrame(X, columns=columns).assign(y=y, id=np.arange(60))
    model = sqlnb.NaiveBayes("sk_wide", con=spark, family="gaussian").fit(
        spark.createDataFrame(data), "y", features=columns)
    got = model.predict_proba(spark.createDataFrame(data)).toPandas().sort_values("id")
    oracle = sqlnb.NaiveBayes("wide", con=duckdb.connect(), family="gaussian").fit(
        data, "y", features=columns)
    expected = oracle.predict_proba(data).df().sort_values("id")
    reference = GaussianNB().fit(X, y)
    probas = [f"proba_{k}" for k in range(10)]
    labels = model.predict(spark.createDataFrame(data)).select("id", "prediction")
    assert [r.prediction for r in labels.orderBy("id").collect()] == list(reference.predict(X))
    np.testing.assert_allclose(got[probas].to_numpy(), expected[probas].to_numpy(),
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(got[probas].to_numpy(), reference.predict_proba(X),
                               rtol=0, atol=1e-9)


def test_a_per_group_model_refitted_as_another_kind_on_spark_answers_as_that_kind(
        spark, frame, kinds_duck):
    """A per-group model's tables are written without versions; a refit of the same name
    as a model whose tables are versioned (a view each) replaces them, and back again."""
    model = sqlnb.NaiveBayes("sk_refit_kind", con=spark, family="gaussian")
    model.fit(frame, "y", features=["x2"], group_by="g")
    model.fit(frame, "y", features=["x0", "x2"])
    _same_answers(model, sqlnb.NaiveBayes("d", con=kinds_duck, family="gaussian").fit(
        "t", "y", features=["x0", "x2"]), frame)
    model.fit(frame, "y", features=["x2"], group_by="g")
    _same_answers(model, sqlnb.NaiveBayes("d", con=kinds_duck, family="gaussian").fit(
        "t", "y", features=["x2"], group_by="g"), frame)
