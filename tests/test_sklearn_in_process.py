"""The scikit-learn facade scores NumPy rows in this process from the model's parameters
(``scoring.in_process``): the same answers as the SQL form, and a refit by another
connection of the same database is seen at the next call."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from sklearn import naive_bayes as reference
from sklearn.datasets import load_digits

import sqlnb.scoring
from sqlnb import NaiveBayes
from sqlnb import sklearn as facade

OUTPUTS = ["predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba"]
ESTIMATORS = ["GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB"]


@pytest.fixture(scope="module")
def digits() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_digits(return_X_y=True)
    return X[::6], y[::6]  # 300 rows, 64 features, 10 classes


def data_for(name: str, digits: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    X, y = digits
    return (X.astype(np.int64), y) if name == "CategoricalNB" else (X, y)


def in_sql(estimator, method: str, X: np.ndarray) -> np.ndarray:
    """What the facade answers with the in-process form switched off (the SQL form)."""
    estimator._score_in_process = lambda *args: None
    try:
        return getattr(estimator, method)(X)
    finally:
        del estimator._score_in_process


@pytest.mark.parametrize("name", ESTIMATORS)
def test_in_process_scores_equal_the_sql_forms(name, digits):
    X, y = data_for(name, digits)
    estimator = getattr(facade, name)().fit(X, y)
    assert sqlnb.scoring.in_process(estimator.sqlnb_model().context) is not None
    for method in OUTPUTS:
        ours, sql = getattr(estimator, method)(X), in_sql(estimator, method, X)
        if method == "predict":
            np.testing.assert_array_equal(ours, sql)
            assert ours.dtype == sql.dtype
        else:
            np.testing.assert_allclose(ours, sql, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_in_process_scores_match_scikit_learn(name, digits):
    X, y = data_for(name, digits)
    ours = getattr(facade, name)().fit(X, y)
    theirs = getattr(reference, name)().fit(X, y)
    np.testing.assert_array_equal(ours.predict(X[:7]), theirs.predict(X[:7]))
    np.testing.assert_allclose(ours.predict_proba(X[:7]), theirs.predict_proba(X[:7]),
                               rtol=0, atol=1e-9)


def test_gaussian_in_process_keeps_its_digits_at_a_large_offset(digits):
    X, y = digits
    X = X + 1e9  # exact in float64; the means sit 1e9 from the origin
    ours = facade.GaussianNB().fit(X, y)
    theirs = reference.GaussianNB().fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), in_sql(ours, "predict_proba", X),
                               rtol=0, atol=1e-12)


def test_a_refit_by_another_connection_is_seen_at_the_next_call():
    X = np.array([[0.0], [0.2], [10.0], [10.2]])
    estimator = facade.GaussianNB().fit(X, np.array([0, 0, 1, 1]))
    assert estimator.predict(np.array([[0.1]])).tolist() == [0]

    model = estimator.sqlnb_model()
    other = model.engine.connection.cursor()  # another connection to the same database
    swapped = pa.table({"x0": [0.0, 0.2, 10.0, 10.2], "__sqlnb_target": [1, 1, 0, 0]})
    NaiveBayes("model", con=other, sql_macros=False).fit(swapped, "__sqlnb_target")

    assert estimator.predict(np.array([[0.1]])).tolist() == [1]
    np.testing.assert_allclose(estimator.predict_proba(np.array([[0.1]])),
                               in_sql(estimator, "predict_proba", np.array([[0.1]])),
                               rtol=0, atol=1e-12)


def test_a_category_no_class_saw_scores_as_scikit_learn_does(digits):
    """``min_categories`` gives every class codes no row had: smoothed, not unknown."""
    X, y = data_for("CategoricalNB", digits)
    ours = facade.CategoricalNB(min_categories=20).fit(X, y)
    theirs = reference.CategoricalNB(min_categories=20).fit(X, y)
    rows = X[:3].copy()
    rows[:, 0] = [19, 18, 0]  # feature 0 is 0 in every digit
    np.testing.assert_array_equal(ours.predict(rows), theirs.predict(rows))
    np.testing.assert_allclose(ours.predict_log_proba(rows),
                               in_sql(ours, "predict_log_proba", rows), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(rows), theirs.predict_proba(rows),
                               rtol=0, atol=1e-9)
