"""Cross-validated search over a model that lives on Spark, against the same search on
DuckDB (whose results tests/test_search.py checks against scikit-learn's GridSearchCV).

Spark has no transactions to roll back: the search's scratch model is real tables of a
name no user has, dropped at the end, also when the search fails. Every test shares the
one Spark session of conftest.py and searches a tiny table with a fold column.
"""

from __future__ import annotations

import itertools

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlnb
from sqlnb.engines.base import DUCKDB_ONLY
from sqlnb.errors import InvalidParameterError, UnsupportedError

pytest.importorskip("pyspark.sql")

SCORING = ["accuracy", "neg_log_loss", "f1_macro", "f1_weighted", "balanced_accuracy"]
_names = itertools.count()
_rng = np.random.default_rng(7)
N = 36
# (continuous values: binarized, small whole numbers would give classes whose
# log-likelihoods tie exactly, which the engines break by their last bit)
X = _rng.uniform(0, 4, size=(N, 3)).round(2)
Y = np.array(["a", "b", "c"] * (N // 3))
X[Y == "b", 0] += 1.5
X[Y == "c", 2] += 2.5
FRAME = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "x2": X[:, 2], "y": Y,
                      "w": _rng.uniform(0.5, 2.0, size=N).round(3),
                      "fold": (np.arange(N) * 7) % 4})


def name(prefix: str) -> str:
    """A model name not used before in the session (the Spark catalog outlives a test)."""
    return f"{prefix}_{next(_names)}"


@pytest.fixture(scope="module")
def frame(spark):
    return spark.createDataFrame(FRAME)


@pytest.fixture
def duck():
    con = duckdb.connect()
    con.register("frame_df", FRAME)
    con.execute("CREATE TABLE t AS SELECT * FROM frame_df")
    yield con
    con.close()


def scratch_tables(spark) -> list[str]:
    """What searches leave in the catalog: their scratch models and training tables."""
    return [t.name for t in spark.catalog.listTables()
            if t.name.startswith(("__sqlnb_search", "__sqlnb_training"))]


CASES = [
    # the held-out Gaussian moments come from the pooled ones run backwards
    ("gaussian", {"var_smoothing": [1e-9, 1e-2, 0.5]}, "w"),
    # binarize changes the statistics: one scratch model per value
    ("bernoulli", {"binarize": [1.0, 2.5], "alpha": [0.5, 1.0]}, None),
]


@pytest.mark.parametrize(("family", "grid", "weight"), CASES, ids=[c[0] for c in CASES])
def test_a_search_on_spark_scores_as_the_same_search_on_duckdb(spark, frame, duck, family,
                                                                grid, weight):
    model = sqlnb.NaiveBayes(name("ss"), con=spark, family=family)
    found = model.search(frame, "y", features=["x0", "x1", "x2"], weight=weight,
                         param_grid=grid, cv="fold", scoring=SCORING, refit="neg_log_loss")
    expected = sqlnb.NaiveBayes("ss", con=duck, family=family).search(
        "t", "y", features=["x0", "x1", "x2"], weight=weight, param_grid=grid, cv="fold",
        scoring=SCORING, refit="neg_log_loss")

    assert found.best_params_ == expected.best_params_
    assert found.best_score_ == pytest.approx(expected.best_score_, abs=1e-9)
    assert found.cv_results_.columns == expected.cv_results_.columns
    got, want = [tuple(r) for r in found.cv_results_.collect()], expected.cv_results_.fetchall()
    assert len(got) == len(want) == len(found.candidates)
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            if isinstance(b, float):
                assert a == pytest.approx(b, abs=1e-9)
            else:
                assert a == b
    # the refit is the model of the best candidate, on every row
    assert {k: model.family.params[k] for k in found.best_params_} == found.best_params_
    refitted = sqlnb.NaiveBayes("refit", con=duck, family=family, **found.best_params_)
    refitted.fit("t", "y", features=["x0", "x1", "x2"], weight=weight)
    spark_rows = sorted(tuple(r) for r in model.predict_proba(frame).collect())
    duck_rows = sorted(refitted.predict_proba("t").fetchall())
    np.testing.assert_allclose([r[-3:] for r in spark_rows], [r[-3:] for r in duck_rows],
                               rtol=0, atol=1e-9)
    assert not scratch_tables(spark)


def test_a_failed_search_on_spark_leaves_no_scratch_table(spark, frame):
    model = sqlnb.NaiveBayes(name("sf"), con=spark, family="multinomial")
    one_fold = frame.withColumn("fold", frame["fold"] * 0)
    # refused after the scratch model's fit: its fold has all the rows
    with pytest.raises(InvalidParameterError, match="1 fold"):
        model.search(one_fold, "y", features=["x0", "x1"], param_grid={"alpha": [1.0]},
                     cv="fold")
    assert not scratch_tables(spark)
    assert not [t.name for t in spark.catalog.listTables() if t.name.startswith(model.name)]


def test_what_a_search_on_spark_cannot_do_is_refused_saying_what_to_do(spark, frame):
    model = sqlnb.NaiveBayes(name("sr"), con=spark, family="multinomial")
    with pytest.raises(UnsupportedError, match="cv must name a fold column"):
        model.search(frame, "y", features=["x0"], param_grid={"alpha": [1.0]}, cv=3)
    key = "search of text, family='auto' and per-group models"
    with pytest.raises(UnsupportedError, match="is DuckDB-only") as refused:
        model.search(frame, "y", features=["x0"], param_grid={"alpha": [1.0]}, cv="fold",
                     group_by="x1")
    assert str(refused.value).split(": ", 1)[1] == DUCKDB_ONLY[key]
    assert not scratch_tables(spark)
