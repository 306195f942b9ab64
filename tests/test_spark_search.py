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
WORDS = np.array(["red", "green", "blue", "dark", "light", "warm"])
FRAME = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "x2": X[:, 2], "y": Y,
                      "w": _rng.uniform(0.5, 2.0, size=N).round(3),
                      "fold": (np.arange(N) * 7) % 4,
                      # a text column (categorical under family="auto"), a group column
                      # and a short document per row
                      "k": WORDS[(np.arange(N) * 5 + (Y == "b")) % 4],
                      "g": np.where(np.arange(N) % 2 == 0, "east", "west"),
                      "doc": [" ".join(WORDS[(i * np.array([1, 3, 5]) + (Y[i] == "c") * 2)
                                             % len(WORDS)]) for i in range(N)]})


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


# (family, grid, weight, fit arguments beside the target)
CASES = [
    # the held-out Gaussian moments come from the pooled ones run backwards
    ("gaussian", {"var_smoothing": [1e-9, 1e-2, 0.5]}, "w", {"features": ["x0", "x1", "x2"]}),
    # binarize changes the statistics: one scratch model per value
    ("bernoulli", {"binarize": [1.0, 2.5], "alpha": [0.5, 1.0]}, None,
     {"features": ["x0", "x1", "x2"]}),
    # per group: each (group, fold) trains on its group's rows of the other folds
    ("multinomial", {"alpha": [0.1, 1.0]}, "w", {"features": ["x0", "x2"], "group_by": "g"}),
    # family="auto": a part per family, each candidate's fold model the parts' sum
    ("auto", {"alpha": [0.5, 1.0], "var_smoothing": [1e-9, 1e-2]}, "w",
     {"features": ["x0", "x1", "k"]}),
    # both
    ("auto", {"alpha": [0.5, 2.0]}, None, {"features": ["x0", "k"], "group_by": "g"}),
    # text: each fold's vocabulary from its training documents
    ("multinomial", {"alpha": [0.5, 1.0], "min_df": [1, 2]}, "w", {"text": "doc"}),
]
IDS = ["gaussian", "bernoulli", "per-group", "auto", "per-group-auto", "text"]


def probabilities(rows) -> list[list[float]]:
    """The class probabilities of scored rows (the last three columns), in row order."""
    return [list(r[-3:]) for r in sorted(tuple(r) for r in rows)]


@pytest.mark.parametrize(("family", "grid", "weight", "fit"), CASES, ids=IDS)
def test_a_search_on_spark_scores_as_the_same_search_on_duckdb(spark, frame, duck, family,
                                                                grid, weight, fit):
    model = sqlnb.NaiveBayes(name("ss"), con=spark, family=family)
    found = model.search(frame, "y", weight=weight, param_grid=grid, cv="fold",
                         scoring=SCORING, refit="neg_log_loss", **fit)
    expected = sqlnb.NaiveBayes("ss", con=duck, family=family).search(
        "t", "y", weight=weight, param_grid=grid, cv="fold", scoring=SCORING,
        refit="neg_log_loss", **fit)

    assert found.best_params_ == expected.best_params_
    assert found.best_score_ == pytest.approx(expected.best_score_, abs=1e-9)
    assert found.cv_results_.columns == expected.cv_results_.columns
    got, want = [tuple(r) for r in found.cv_results_.collect()], expected.cv_results_.fetchall()
    assert len(got) == len(want) == len(found.candidates)
    columns = expected.cv_results_.columns
    for g, w in zip(got, want):
        for column, a, b in zip(columns, g, w):
            if isinstance(b, float):
                assert a == pytest.approx(b, abs=1e-9)
            elif not column.startswith("rank_test_"):
                assert a == b
    # ranks: equal, but for candidates whose means tie within 1e-9 (the engines add in
    # different orders, and a tie may then break either way)
    for column in [c for c in columns if c.startswith("rank_test_")]:
        mean = columns.index(column.replace("rank_", "mean_"))
        rank = columns.index(column)
        for g, w in zip(got, want):
            tied = [v for v in want if v is not w and abs(v[mean] - w[mean]) <= 1e-9]
            if not tied:
                assert g[rank] == w[rank]
    # the refit is the model of the best candidate, on every row
    assert {k: v for k, v in model.family.params.items() if k in found.best_params_} \
        == {k: v for k, v in found.best_params_.items() if k in model.family.params}
    refit = {k: v for k, v in found.best_params_.items() if k in model.family.params}
    text = {k: v for k, v in found.best_params_.items() if k not in model.family.params}
    refitted = sqlnb.NaiveBayes("refit", con=duck, family=family, **refit)
    refitted.fit("t", "y", weight=weight, **fit, **text)
    np.testing.assert_allclose(probabilities(model.predict_proba(frame).collect()),
                               probabilities(refitted.predict_proba("t").fetchall()),
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
    assert not scratch_tables(spark)
