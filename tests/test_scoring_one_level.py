"""The arrays statement planned at each call (``sql/score/score_one_level.sql``): what scores
files, tables and DataFrames. Wide models read from Parquet, against scikit-learn; missing
values; far from the origin; the same answers as the statement planned once for small
Arrow inputs (``sql/score/score_arrays.sql``)."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy.special import gammaln
from sklearn.naive_bayes import BernoulliNB, ComplementNB, GaussianNB, MultinomialNB

import sqlnb
from sqlnb.compiler import statement
from sqlnb.scoring import COMPILED_MAX_TERMS, strategy

FEATURES = 300  # x 3 classes: far past COMPILED_MAX_TERMS, so "auto" takes the arrays


def columns(X: np.ndarray, y: np.ndarray | None = None,
            missing: np.ndarray | None = None) -> pa.Table:
    """``X`` (and ``y``) as an Arrow table; where ``missing`` is set, a NULL."""
    data = {f"x{i}": pa.array(X[:, i], mask=None if missing is None else missing[:, i])
            for i in range(X.shape[1])}
    if y is not None:
        data["label"] = pa.array(y)
    return pa.table(data)


def parquet(tmp_path, name: str, table: pa.Table) -> str:
    path = str(tmp_path / f"{name}.parquet")
    pq.write_table(table, path)
    return path


def matrix(relation, prefix: str, classes) -> np.ndarray:
    frame = relation.df()
    return frame[[f"{prefix}{c}" for c in classes]].to_numpy()


def wide_gaussian(offset: float = 0.0, rows: int = 240) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    y = rng.integers(0, 3, rows)
    spread = rng.uniform(0.5, 2.0, FEATURES)
    X = offset + rng.normal(size=(rows, FEATURES)) * spread + y[:, None] * 0.15
    return X, y


def test_a_wide_gaussian_read_from_parquet_matches_sklearn(con, tmp_path):
    X, y = wide_gaussian()
    reference = GaussianNB().fit(X, y)
    model = sqlnb.NaiveBayes("wide", con=con).fit(columns(X, y), "label")
    path = parquet(tmp_path, "rows", columns(X))
    assert FEATURES * 3 > COMPILED_MAX_TERMS and strategy(model, path) == "arrays"

    np.testing.assert_array_equal(model.predict(path).df()["prediction"], reference.predict(X))
    np.testing.assert_allclose(matrix(model.predict_proba(path), "proba_", [0, 1, 2]),
                               reference.predict_proba(X), atol=1e-9)
    np.testing.assert_allclose(matrix(model.predict_log_proba(path), "log_proba_", [0, 1, 2]),
                               reference.predict_log_proba(X), atol=1e-9, rtol=1e-9)
    np.testing.assert_allclose(matrix(model.predict_joint_log_proba(path), "jll_", [0, 1, 2]),
                               reference.predict_joint_log_proba(X), rtol=1e-9)


def test_far_from_the_origin_the_error_is_no_larger_than_sklearns(con, tmp_path):
    # 1e9 from the origin scikit-learn's own answers lose digits: both are compared with the
    # joint log-likelihood computed exactly (fractions) from the data
    X, y = wide_gaussian(1e9, rows=60)
    rows = X[:6]
    data = [[Fraction(v) for v in row] for row in X]
    n = len(data)

    def mean(values):
        return sum(values, Fraction(0)) / len(values)

    def variance(values):
        centre = mean(values)
        return sum(((v - centre) ** 2 for v in values), Fraction(0)) / len(values)

    epsilon = Fraction(1e-9) * max(variance([r[f] for r in data]) for f in range(FEATURES))
    exact = np.zeros((len(rows), 3))
    for c in range(3):
        members = [data[i] for i in range(n) if y[i] == c]
        theta = [mean([r[f] for r in members]) for f in range(FEATURES)]
        var = [variance([r[f] for r in members]) + epsilon for f in range(FEATURES)]
        prior = np.log(len(members) / n)
        for i, row in enumerate(rows):
            exact[i, c] = prior + math.fsum(
                -0.5 * math.log(2 * math.pi * float(var[f]))
                - float((Fraction(row[f]) - theta[f]) ** 2 / (2 * var[f]))
                for f in range(FEATURES))
    theirs = GaussianNB().fit(X, y).predict_joint_log_proba(rows)
    model = sqlnb.NaiveBayes("far", con=con).fit(columns(X, y), "label")

    got = matrix(model.predict_joint_log_proba(parquet(tmp_path, "far", columns(rows))),
                 "jll_", [0, 1, 2])
    assert np.abs(got - exact).max() <= max(np.abs(theirs - exact).max(), 1e-9)
    np.testing.assert_array_equal(model.predict(parquet(tmp_path, "far", columns(rows))).df()[
        "prediction"], exact.argmax(axis=1))


def test_missing_values_in_a_wide_model_leave_their_features_out(con, tmp_path):
    X, y = wide_gaussian()
    reference = GaussianNB().fit(X, y)
    model = sqlnb.NaiveBayes("gaps", con=con).fit(columns(X, y), "label")
    rows = X[:4].copy()
    null = np.zeros_like(rows, dtype=bool)
    rows[0, 7] = np.nan  # a NaN
    null[1, 250] = True  # a NULL
    rows[2, [3, 299]] = np.nan
    null[2, 40] = True
    present = ~(np.isnan(rows) | null)
    terms = -0.5 * (np.log(2 * np.pi * reference.var_)[None, :, :]
                    + (rows[:, None, :] - reference.theta_[None]) ** 2 / reference.var_[None])
    expected = (np.log(reference.class_prior_)
                + np.where(present[:, None, :], terms, 0).sum(axis=2))

    path = parquet(tmp_path, "gaps", columns(rows, missing=null))
    np.testing.assert_allclose(matrix(model.predict_joint_log_proba(path), "jll_", [0, 1, 2]),
                               expected, rtol=1e-12)
    np.testing.assert_array_equal(model.predict(path).df()["prediction"],
                                  expected.argmax(axis=1))
    # the last row has no missing value: scikit-learn's own answer
    np.testing.assert_allclose(
        matrix(model.predict_joint_log_proba(path), "jll_", [0, 1, 2])[3],
        reference.predict_joint_log_proba(rows[3:4])[0], rtol=1e-12)


def test_missing_error_names_the_feature_in_a_wide_model(con, tmp_path):
    X, y = wide_gaussian()
    model = sqlnb.NaiveBayes("strict", con=con, missing="error").fit(columns(X, y), "label")
    rows = X[:3].copy()
    rows[2, 123] = np.nan

    with pytest.raises(Exception, match="missing value \\(NULL or NaN\\) in feature x123"):
        model.predict(parquet(tmp_path, "strict", columns(rows))).fetchall()


@pytest.mark.parametrize("family, estimator", [
    ("multinomial", MultinomialNB), ("complement", ComplementNB), ("bernoulli", BernoulliNB),
])
def test_wide_count_models_read_from_parquet_match_sklearn(con, tmp_path, family, estimator):
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 200)
    X = rng.poisson(1.0 + y[:, None] * 0.2, size=(200, FEATURES)).astype(float)
    reference = estimator().fit(X, y)
    model = sqlnb.NaiveBayes("counts", con=con, family=family).fit(columns(X, y), "label")
    path = parquet(tmp_path, "counts", columns(X))

    np.testing.assert_array_equal(model.predict(path).df()["prediction"], reference.predict(X))
    np.testing.assert_allclose(matrix(model.predict_proba(path), "proba_", [0, 1, 2]),
                               reference.predict_proba(X), atol=1e-9)


def test_a_wide_poisson_read_from_parquet_matches_its_formula(con, tmp_path):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 150)
    X = rng.poisson(1.0 + y[:, None] * 0.3, size=(150, FEATURES)).astype(float)
    model = sqlnb.NaiveBayes("poisson", con=con, family="poisson", alpha=1.0).fit(
        columns(X, y), "label")
    rate = np.array([(X[y == c].sum(axis=0) + 1.0) / ((y == c).sum() + 1.0) for c in range(3)])
    prior = np.log(np.bincount(y) / len(y))
    jll = (prior + X @ np.log(rate).T - rate.sum(axis=1)
           - gammaln(X + 1).sum(axis=1, keepdims=True))
    rows = X.copy()
    rows[0, 9] = np.nan  # left out: its term, rate included, is not counted
    jll[0] -= X[0, 9] * np.log(rate[:, 9]) - rate[:, 9] - gammaln(X[0, 9] + 1)

    got = matrix(model.predict_joint_log_proba(parquet(tmp_path, "poisson", columns(rows))),
                 "jll_", [0, 1, 2])
    np.testing.assert_allclose(got, jll, rtol=1e-12)


@pytest.mark.parametrize("output", ["predict", "proba", "log_proba", "joint"])
def test_planned_per_call_and_planned_once_agree(con, tmp_path, output):
    # a file is scored by the statement planned at each call, a small Arrow table by the
    # one planned once (sql/score/score_arrays.sql): the same numbers
    X, y = wide_gaussian()
    model = sqlnb.NaiveBayes("both", con=con).fit(columns(X, y), "label")
    rows = X[:50].copy()
    rows[3, 5] = np.nan
    method = {"predict": model.predict, "proba": model.predict_proba,
              "log_proba": model.predict_log_proba, "joint": model.predict_joint_log_proba}
    from_file = method[output](parquet(tmp_path, "agree", columns(rows))).df()
    from_arrow = method[output](columns(rows)).df()

    assert list(from_file.columns) == list(from_arrow.columns)
    np.testing.assert_allclose(from_file.to_numpy(dtype=float), from_arrow.to_numpy(dtype=float),
                               rtol=1e-12, equal_nan=True)


def test_the_input_columns_pass_through_one_level_for_predict_and_two_for_per_class_columns(
        con, tmp_path):
    X, y = wide_gaussian(rows=30)
    model = sqlnb.NaiveBayes("levels", con=con).fit(columns(X, y), "label")
    path = parquet(tmp_path, "levels", columns(X))

    def levels(output: str) -> int:
        return len(re.findall(r"^\s*FROM\b", statement(model, path, output)[0], re.MULTILINE))

    assert levels("predict") == 1
    assert levels("proba") == 2


def test_a_wide_gaussian_past_the_cancellation_bound_is_scored_from_differences(con, tmp_path):
    # x0 is 0 in class 0 and 1000 in class 1 (variance epsilon in both): the inner
    # products would cancel, so each class is a distance; a missing value takes the careful
    # form of that shape
    X, y = wide_gaussian(rows=60)
    y = y % 2
    X[:, 0] = y * 1000.0
    reference = GaussianNB().fit(X, y)
    model = sqlnb.NaiveBayes("stiff", con=con).fit(columns(X, y), "label")
    assert not sqlnb.scoring._parameters(model.context)["expanded"]
    rows = X[:5].copy()
    rows[1, 17] = np.nan
    present = ~np.isnan(rows)
    terms = -0.5 * (np.log(2 * np.pi * reference.var_)[None, :, :]
                    + (rows[:, None, :] - reference.theta_[None]) ** 2 / reference.var_[None])
    expected = (np.log(reference.class_prior_)
                + np.where(present[:, None, :], terms, 0).sum(axis=2))

    path = parquet(tmp_path, "stiff", columns(rows))
    np.testing.assert_allclose(matrix(model.predict_joint_log_proba(path), "jll_", [0, 1]),
                               expected, rtol=1e-12)
    np.testing.assert_array_equal(model.predict(path).df()["prediction"], expected.argmax(axis=1))
