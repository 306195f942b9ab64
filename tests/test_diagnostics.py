"""SQL summaries behind the plots (reliability bins, priors, per-class distributions), the
model catalogue and database files, with scikit-learn as the oracle."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import as_counts, load
from sklearn.calibration import calibration_curve
from sklearn.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB

import sqlnb
from sqlnb import diagnostics
from sqlnb.errors import InvalidParameterError, UnknownColumnError


def frame_of(X: np.ndarray, y: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])]).assign(y=y)


def test_binary_reliability_equals_calibration_curve(con):
    X, y = load("breast_cancer")
    X = X[:, :6]
    frame = frame_of(X, y)
    model = sqlnb.NaiveBayes("m", con=con).fit(frame, "y")
    curve = diagnostics.model_reliability(model, frame, bins=10)
    positive = GaussianNB().fit(X, y).predict_proba(X)[:, 1]
    observed, predicted = calibration_curve(y, positive, n_bins=10)
    assert curve["kind"] == "binary" and curve["positive"] == 1
    np.testing.assert_allclose([b["observed"] for b in curve["bins"]], observed, atol=1e-12)
    np.testing.assert_allclose([b["mean_predicted"] for b in curve["bins"]], predicted,
                               atol=1e-9)
    counts = np.bincount(np.clip(np.searchsorted(np.linspace(0, 1, 11)[1:-1], positive), 0, 9),
                         minlength=10)
    assert [b["n"] for b in curve["bins"]] == [int(c) for c in counts if c]


def test_multiclass_reliability_is_the_predicted_class_confidence(con):
    X, y = load("wine")
    frame = frame_of(X, y)
    model = sqlnb.NaiveBayes("m", con=con).fit(frame, "y")
    curve = diagnostics.model_reliability(model, frame, bins=5)
    proba = GaussianNB().fit(X, y).predict_proba(X)
    right = (proba.argmax(axis=1) == y).astype(float)
    observed, predicted = calibration_curve(right, proba.max(axis=1), n_bins=5)
    assert curve["kind"] == "top-label"
    np.testing.assert_allclose([b["observed"] for b in curve["bins"]], observed, atol=1e-12)
    np.testing.assert_allclose([b["mean_predicted"] for b in curve["bins"]], predicted,
                               atol=1e-9)
    assert sum(b["n"] for b in curve["bins"]) == len(y)


def test_reliability_rejects_bad_bins(con):
    rel = con.sql("SELECT 'a' AS y, 0.5 AS pa, 0.5 AS pb")
    with pytest.raises(InvalidParameterError, match="bins must be a positive integer"):
        diagnostics.reliability(con, rel, "y", {"a": "pa", "b": "pb"}, bins=0)
    with pytest.raises(UnknownColumnError, match="'pc' is not in the predictions"):
        diagnostics.reliability(con, rel, "y", {"a": "pa", "c": "pc"})


def test_class_priors_equal_scikit_learns(con):
    X, y = load("iris")
    keep = np.r_[0:50, 50:80, 100:110]  # unequal classes
    model = sqlnb.NaiveBayes("m", con=con).fit(frame_of(X[keep], y[keep]), "y")
    oracle = GaussianNB().fit(X[keep], y[keep])
    priors = diagnostics.class_priors(model)
    assert [p["class"] for p in priors] == [0, 1, 2]
    np.testing.assert_allclose([p["prior"] for p in priors], oracle.class_prior_, atol=1e-12)
    assert [p["n"] for p in priors] == [50, 30, 10]


def test_gaussian_distribution_equals_theta_and_var(con):
    X, y = load("iris")
    model = sqlnb.NaiveBayes("m", con=con).fit(frame_of(X, y), "y")
    oracle = GaussianNB().fit(X, y)
    found = diagnostics.feature_distribution(model, "x2")
    assert found["family"] == "gaussian"
    np.testing.assert_allclose([r["theta"] for r in found["rows"]], oracle.theta_[:, 2],
                               atol=1e-9)
    np.testing.assert_allclose([r["var"] for r in found["rows"]], oracle.var_[:, 2], atol=1e-9)


@pytest.mark.parametrize("family, estimator", [("multinomial", MultinomialNB),
                                               ("bernoulli", BernoulliNB)])
def test_count_distributions_equal_feature_log_prob(con, family, estimator):
    X, y = load("wine")
    X = as_counts(X)
    model = sqlnb.NaiveBayes("m", con=con, family=family).fit(frame_of(X, y), "y")
    oracle = estimator().fit(X, y)
    found = diagnostics.feature_distribution(model, "x4")
    np.testing.assert_allclose([r["probability"] for r in found["rows"]],
                               np.exp(oracle.feature_log_prob_[:, 4]), atol=1e-12)


def test_categorical_distribution_equals_feature_log_prob(con):
    X, y = load("iris")
    X = as_counts(X, levels=4)
    model = sqlnb.NaiveBayes("m", con=con, family="categorical").fit(frame_of(X, y), "y")
    oracle = CategoricalNB().fit(X, y)
    found = diagnostics.feature_distribution(model, "x0")
    table = {(r["class"], int(r["category"])): r["probability"] for r in found["rows"]}
    expected = np.exp(oracle.feature_log_prob_[0])  # classes x categories
    got = np.array([[table[(c, k)] for k in range(expected.shape[1])] for c in range(3)])
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_mixed_model_distributions_come_from_each_part(con):
    frame = pd.DataFrame({"y": ["a", "b"] * 4, "spend": [1.0, 5.0, 2.0, 6.0] * 2,
                          "plan": ["x", "y", "x", "x"] * 2})
    model = sqlnb.NaiveBayes("m", con=con, family="auto").fit(frame, "y")
    assert diagnostics.feature_distribution(model, "spend")["rows"][0]["theta"] == \
        pytest.approx(1.5)
    plan = diagnostics.feature_distribution(model, "plan")
    assert plan["family"] == "categorical"
    # class a has plan x four times out of four: (4 + 1) / (4 + 2) with alpha = 1
    assert {(r["class"], r["category"]): r["probability"] for r in plan["rows"]}[("a", "x")] \
        == pytest.approx(5 / 6)


def test_distribution_of_an_unknown_feature_names_the_features(con):
    model = sqlnb.NaiveBayes("m", con=con).fit(
        pd.DataFrame({"y": [0, 1, 0, 1], "a": [1.0, 2.0, 1.5, 2.5]}), "y")
    with pytest.raises(UnknownColumnError, match="no feature 'b' \\(features: a\\)"):
        diagnostics.feature_distribution(model, "b")


def test_list_models_summarises_each_model(con):
    frame = pd.DataFrame({"y": ["a", "b", "c"] * 4, "x": np.arange(12.0)})
    sqlnb.NaiveBayes("first", con=con).fit(frame, "y")
    sqlnb.NaiveBayes("second", con=con).fit(frame.iloc[:6], "y", weight=None)
    con.execute("CREATE TABLE notes_meta AS SELECT 1 AS id")  # named like one, is not one
    models = sqlnb.list_models(con)
    assert [(m["model"], m["family"], m["n_classes"], m["n_rows"], m["classes"])
            for m in models] == [("first", "gaussian", 3, 12, ["a", "b", "c"]),
                                 ("second", "gaussian", 3, 6, ["a", "b", "c"])]


def test_list_models_of_an_empty_database_is_empty(con):
    assert sqlnb.list_models(con) == []


def test_connect_creates_files_in_the_compatible_storage_format(tmp_path):
    con = sqlnb.connect(tmp_path / "a.duckdb")
    tags = con.sql("SELECT tags FROM duckdb_databases() WHERE database_name = 'a'").fetchall()
    assert tags == [({"storage_version": f"{sqlnb.COMPATIBLE_STORAGE}+"},)]
    newest = sqlnb.connect(tmp_path / "b.duckdb", storage_version=None)
    tags = newest.sql("SELECT tags FROM duckdb_databases() WHERE database_name = 'b'").fetchall()
    assert tags != [({"storage_version": f"{sqlnb.COMPATIBLE_STORAGE}+"},)]


def test_progress_track_is_silent_off_a_terminal(con, capsys):
    with sqlnb.progress.track(con, "counting"):
        assert con.sql("SELECT count(*) FROM range(100)").fetchall() == [(100,)]
    assert capsys.readouterr() == ("", "")


def test_hostile_names_reach_sql_only_quoted(con):
    feature = "x'\n; DROP TABLE keep; --"
    label = "it's \"quoted\"\n--"
    con.execute("CREATE TABLE keep AS SELECT 1 AS one")
    frame = pd.DataFrame({"y": [label, "b"] * 4, feature: [1.0, 5.0, 2.0, 6.0] * 2})
    model = sqlnb.NaiveBayes("m'; --", con=con).fit(frame, "y")
    rows = diagnostics.feature_distribution(model, feature)["rows"]
    assert [(r["class"], r["theta"]) for r in rows] == [("b", 5.5), (label, 1.5)]
    assert [p["class"] for p in diagnostics.class_priors(model)] == ["b", label]
    curve = diagnostics.model_reliability(model, frame, bins=2)
    assert sum(b["n"] for b in curve["bins"]) == 8
    assert [m["model"] for m in sqlnb.list_models(con)] == ["m'; --"]
    assert con.sql("SELECT * FROM keep").fetchall() == [(1,)]
