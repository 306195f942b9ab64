"""Metrics in SQL against scikit-learn's, and top features against NumPy on sklearn's fit."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn import metrics
from sklearn import naive_bayes as sk
from sql_usage_data import FAMILIES, family_frame

import sqlnb
from sqlnb.errors import EmptyInputError, InvalidParameterError

ESTIMATORS = {
    "gaussian": sk.GaussianNB,
    "multinomial": sk.MultinomialNB,
    "complement": sk.ComplementNB,
    "bernoulli": sk.BernoulliNB,
    "categorical": sk.CategoricalNB,
}


def _fit(family, features=None):
    con = duckdb.connect()
    frame = family_frame(family)
    con.execute("CREATE TABLE customers AS SELECT * FROM frame")
    model = sqlnb.NaiveBayes("churn", con=con, family=family)
    model.fit("customers", "y", features=features)
    return con, frame, model


@pytest.mark.parametrize("family", FAMILIES)
def test_evaluate_equals_scikit_learn(family):
    con, _, model = _fit(family)
    holdout = family_frame(family, n=150, seed=3)
    con.execute("CREATE TABLE holdout AS SELECT * FROM holdout")
    got = model.evaluate("holdout")

    y_true = holdout["y"].tolist()
    y_pred = [r[-1] for r in model.predict("holdout").fetchall()]
    proba = np.array([r[-3:] for r in model.predict_proba("holdout").fetchall()])
    labels = sorted(set(y_true) | set(y_pred))
    precision, recall, f1, support = metrics.precision_recall_fscore_support(
        y_true, y_pred, labels=labels, zero_division=0)

    assert got["n"] == len(y_true)
    assert got["labels"] == labels
    assert got["accuracy"] == pytest.approx(metrics.accuracy_score(y_true, y_pred), abs=1e-12)
    np.testing.assert_allclose(got["precision"], precision, atol=1e-12)
    np.testing.assert_allclose(got["recall"], recall, atol=1e-12)
    np.testing.assert_allclose(got["f1"], f1, atol=1e-12)
    assert got["support"] == support.tolist()
    assert got["macro_f1"] == pytest.approx(
        metrics.f1_score(y_true, y_pred, average="macro", zero_division=0), abs=1e-12)
    assert got["weighted_f1"] == pytest.approx(
        metrics.f1_score(y_true, y_pred, average="weighted", zero_division=0), abs=1e-12)
    assert got["log_loss"] == pytest.approx(
        metrics.log_loss(y_true, proba, labels=model.classes_), rel=1e-12)
    assert got["confusion_matrix"] == metrics.confusion_matrix(
        y_true, y_pred, labels=labels).tolist()


def test_evaluate_any_predictions_relation():
    """Labels only predicted, classes never predicted, and clipped probabilities."""
    con = duckdb.connect()
    frame = pd.DataFrame({
        "truth": [1, 1, 2, 2, 2, 3, 3, None],
        "guess": [1, 4, 2, 2, 1, 1, 1, 2],
        "p1": [0.9, 0.2, 0.0, 0.1, 0.5, 0.7, 1.0, 0.3],
        "p2": [0.05, 0.3, 1.0, 0.8, 0.25, 0.2, 0.0, 0.3],
        "p3": [0.05, 0.5, 0.0, 0.1, 0.25, 0.1, 0.0, 0.4],
    })
    rel = con.sql("SELECT * FROM frame")
    got = sqlnb.evaluate(con, rel, "truth", prediction="guess",
                         proba={1: "p1", 2: "p2", 3: "p3"})
    known = frame.dropna()
    y_true, y_pred = known["truth"].astype(int), known["guess"]
    labels = [1, 2, 3, 4]
    p, r, f, s = metrics.precision_recall_fscore_support(
        y_true, y_pred, labels=labels, zero_division=0)
    assert got["labels"] == labels
    np.testing.assert_allclose(got["precision"], p, atol=1e-12)
    np.testing.assert_allclose(got["recall"], r, atol=1e-12)
    np.testing.assert_allclose(got["f1"], f, atol=1e-12)
    assert got["support"] == s.tolist()
    assert got["macro_f1"] == pytest.approx(
        metrics.f1_score(y_true, y_pred, average="macro", zero_division=0), abs=1e-12)
    assert got["log_loss"] == pytest.approx(
        metrics.log_loss(y_true, known[["p1", "p2", "p3"]].to_numpy(), labels=[1, 2, 3]),
        rel=1e-12)
    assert got["confusion_matrix"] == metrics.confusion_matrix(
        y_true, y_pred, labels=labels).tolist()
    no_proba = sqlnb.evaluate(con, rel, "truth", prediction="guess")
    assert no_proba["log_loss"] is None
    assert no_proba["accuracy"] == pytest.approx(metrics.accuracy_score(y_true, y_pred))


def test_evaluate_without_labelled_rows_is_refused():
    con, _, model = _fit("gaussian")
    con.execute("CREATE TABLE nobody AS SELECT * FROM customers WHERE false")
    con.execute("CREATE TABLE unlabelled AS SELECT * REPLACE (NULL AS y) FROM customers")
    tables = con.sql("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()
    for source in ("nobody", "unlabelled"):
        with pytest.raises(EmptyInputError, match="no labelled rows to evaluate"):
            model.evaluate(source)
    with pytest.raises(EmptyInputError, match="no labelled rows to evaluate"):
        sqlnb.evaluate(con, con.sql("SELECT 1 AS y, 1 AS prediction WHERE false"), "y")
    assert con.sql("SELECT table_name FROM information_schema.tables ORDER BY 1"
                   ).fetchall() == tables


# ---------------------------------------------------------------- top features
def _oracle_scores(family, estimator):
    if family == "gaussian":
        theta, var = estimator.theta_, estimator.var_
        scores = np.zeros_like(theta)
        for c in range(len(theta)):
            others = [o for o in range(len(theta)) if o != c]
            kl = 0.5 * (np.log(var[others] / var[c]) + (var[c] + (theta[c] - theta[others]) ** 2)
                        / var[others] - 1)
            scores[c] = kl.mean(axis=0)
        return scores
    coef = estimator.feature_log_prob_
    if family == "bernoulli":
        coef = coef - np.log1p(-np.exp(coef))
    k = len(coef)
    return np.array([coef[c] - np.delete(coef, c, axis=0).mean(axis=0) for c in range(k)])


@pytest.mark.parametrize("family", ["gaussian", "multinomial", "complement", "bernoulli"])
def test_top_features_match_scikit_learn_parameters(family):
    features = ["x0", "x1", "odd name", "x2", "x3"]
    _, frame, model = _fit(family, features=features)
    estimator = ESTIMATORS[family]().fit(frame[features].to_numpy(), frame["y"])
    scores = _oracle_scores(family, estimator)
    rows = model.top_features(3).fetchall()
    assert [r[0] for r in rows] == [c for c in estimator.classes_ for _ in range(3)]
    for i, label in enumerate(estimator.classes_):
        order = sorted(range(len(features)), key=lambda f: (-scores[i, f], features[f]))[:3]
        mine = [r for r in rows if r[0] == label]
        assert [r[2] for r in mine] == [features[f] for f in order]
        assert [r[1] for r in mine] == [1, 2, 3]
        np.testing.assert_allclose([r[4] for r in mine], scores[i, order], rtol=1e-9, atol=1e-12)


def test_top_features_of_categories():
    features = ["x0", "x1", "x2", "x3"]
    _, frame, model = _fit("categorical", features=features)
    estimator = sk.CategoricalNB().fit(frame[features].to_numpy(), frame["y"])
    candidates = []
    for f, logp in enumerate(estimator.feature_log_prob_):
        for v in range(logp.shape[1]):
            for c in range(3):
                others = np.delete(logp[:, v], c).mean()
                candidates.append((c, logp[c, v] - others, features[f], str(v)))
    rows = model.top_features(2).fetchall()
    for c, label in enumerate(estimator.classes_):
        best = sorted((x for x in candidates if x[0] == c), key=lambda x: (-x[1], x[2], x[3]))[:2]
        mine = [r for r in rows if r[0] == label]
        assert [(r[2], r[3]) for r in mine] == [(b[2], b[3]) for b in best]
        np.testing.assert_allclose([r[4] for r in mine], [b[1] for b in best], rtol=1e-9)


def test_top_features_needs_a_positive_k():
    _, _, model = _fit("gaussian")
    with pytest.raises(InvalidParameterError):
        model.top_features(0)
