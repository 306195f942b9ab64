"""Scoring strategies (sqlnb/scoring.py): each one against scikit-learn, for every family.

``scoring="compiled"`` inlines the parameters as literals, ``scoring="arrays"`` binds them
as lists; both must give scikit-learn's predictions and probabilities within 1e-9.
"""

from __future__ import annotations

from fractions import Fraction

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import as_counts, load
from scipy.special import gammaln
from sklearn.naive_bayes import BernoulliNB, ComplementNB, GaussianNB, MultinomialNB

import sqlnb
from sqlnb.errors import InvalidDataError, InvalidParameterError
from sqlnb.scoring import ARRAYS_MAX_ROWS, strategy

STRATEGIES = ["compiled", "arrays"]


def small_digits() -> tuple[np.ndarray, np.ndarray]:
    """500 digits, every fourth pixel: 16 features x 10 classes (the compiled form is slow
    to plan on all 64)."""
    X, y = load("digits")
    return X[:500, ::4], y[:500]


def frame_of(X: np.ndarray, y: np.ndarray | None = None) -> pd.DataFrame:
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    if y is not None:
        frame["label"] = y
    return frame


def matrix(relation, prefix: str, classes) -> np.ndarray:
    frame = relation.df()
    return frame[[f"{prefix}{c}" for c in classes]].to_numpy()


def assert_like(model, reference, X: np.ndarray) -> None:
    """Predictions identical, probabilities within 1e-9 of scikit-learn's."""
    rows = frame_of(X)
    predicted = model.predict(rows).df()["prediction"].to_numpy()
    np.testing.assert_array_equal(predicted, reference.predict(X))
    np.testing.assert_allclose(matrix(model.predict_proba(rows), "proba_", model.classes_),
                               reference.predict_proba(X), atol=1e-9)
    np.testing.assert_allclose(
        matrix(model.predict_log_proba(rows), "log_proba_", model.classes_),
        reference.predict_log_proba(X), atol=1e-9, rtol=1e-9)


@pytest.mark.parametrize("scoring", STRATEGIES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("family, estimator, dataset", [
    ("gaussian", GaussianNB(), "wine"),
    ("gaussian", GaussianNB(), "digits"),
    ("multinomial", MultinomialNB(alpha=0.5), "digits"),
    ("complement", ComplementNB(norm=True), "wine"),
    ("bernoulli", BernoulliNB(binarize=2.0), "digits"),
])
def test_each_strategy_matches_sklearn(con, scoring, weighted, family, estimator, dataset):
    X, y = small_digits() if dataset == "digits" else load(dataset)
    if family != "gaussian":
        X = as_counts(X).astype(float)
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else None
    reference = estimator.fit(X, y, sample_weight=w)
    training = frame_of(X, y)
    if weighted:
        training["w"] = w
    params = {k: v for k, v in estimator.get_params().items()
              if k in ("alpha", "norm", "binarize", "var_smoothing")}
    model = sqlnb.NaiveBayes("m", con=con, family=family, scoring=scoring, sql_macros=False,
                             **params).fit(training, "label", weight="w" if weighted else None)

    assert strategy(model) == scoring
    assert_like(model, reference, X)


@pytest.mark.parametrize("scoring", STRATEGIES)
def test_poisson_matches_its_formula(con, scoring):
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 30)
    X = rng.poisson(1.0 + y[:, None] * np.array([0.5, 1.0, 2.0]), size=(90, 3)).astype(float)
    model = sqlnb.NaiveBayes("p", con=con, family="poisson", alpha=1.0, scoring=scoring,
                             sql_macros=False).fit(frame_of(X, y), "label")
    # rate = (sum of counts + alpha) / (rows + alpha); log P(x) = x ln(rate) - rate - ln(x!)
    rate = np.array([(X[y == c].sum(axis=0) + 1.0) / ((y == c).sum() + 1.0) for c in range(3)])
    jll = (np.log(1 / 3) + X @ np.log(rate).T - rate.sum(axis=1)
           - gammaln(X + 1).sum(axis=1, keepdims=True))

    got = matrix(model.predict_joint_log_proba(frame_of(X)), "jll_", [0, 1, 2])
    np.testing.assert_allclose(got, jll, rtol=1e-12)
    np.testing.assert_array_equal(model.predict(frame_of(X)).df()["prediction"],
                                  jll.argmax(axis=1))


@pytest.mark.parametrize("scoring", STRATEGIES)
def test_missing_gaussian_values_leave_the_feature_out(con, scoring):
    X, y = load("iris")
    reference = GaussianNB().fit(X, y)
    model = sqlnb.NaiveBayes("g", con=con, scoring=scoring, sql_macros=False).fit(
        frame_of(X, y), "label")
    rows = X[[0, 60, 120]].copy()
    rows[0, 1] = np.nan  # a NaN, and below a NULL: both are missing
    present = np.ones_like(rows, dtype=bool)
    present[0, 1] = present[1, 3] = False
    table = pa.table({f"x{i}": pa.array(rows[:, i], mask=~present[:, i] & (i == 3))
                      for i in range(4)})
    # scikit-learn's per-feature terms, summed over the features that are there
    terms = -0.5 * (np.log(2 * np.pi * reference.var_)[None, :, :]
                    + (rows[:, None, :] - reference.theta_[None]) ** 2 / reference.var_[None])
    expected = np.log(reference.class_prior_) + np.where(present[:, None, :], terms, 0).sum(2)

    got = matrix(model.predict_joint_log_proba(table), "jll_", [0, 1, 2])
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("scoring", STRATEGIES)
def test_missing_bernoulli_value_takes_back_its_share(con, scoring):
    X = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [0, 0, 1]], dtype=float)
    y = np.array([0, 0, 1, 1])
    reference = BernoulliNB().fit(X, y)
    model = sqlnb.NaiveBayes("b", con=con, family="bernoulli", scoring=scoring,
                             sql_macros=False).fit(frame_of(X, y), "label")
    # with x1 missing, the likelihood is that of the other two features
    p = np.exp(reference.feature_log_prob_)
    x = np.array([1.0, 0.0])
    expected = [np.log(0.5) + np.sum(np.log(np.where(x == 1, p[c, [0, 2]], 1 - p[c, [0, 2]])))
                for c in range(2)]

    got = matrix(model.predict_joint_log_proba(pd.DataFrame({"x0": [1.0], "x1": [np.nan],
                                                             "x2": [0.0]})), "jll_", [0, 1])
    np.testing.assert_allclose(got[0], expected, rtol=1e-12)


@pytest.mark.parametrize("scoring", STRATEGIES)
def test_missing_error_names_the_feature(con, scoring):
    X, y = load("iris")
    model = sqlnb.NaiveBayes("e", con=con, scoring=scoring, missing="error",
                             sql_macros=False).fit(frame_of(X, y), "label")
    rows = frame_of(X[:2])
    rows.loc[1, "x2"] = np.nan
    with pytest.raises(Exception, match="missing value \\(NULL or NaN\\) in feature x2"):
        model.predict(rows).fetchall()


@pytest.mark.parametrize("scoring", STRATEGIES)
def test_row_order_is_the_source_order(con, scoring):
    X, y = small_digits()
    model = sqlnb.NaiveBayes("o", con=con, scoring=scoring, sql_macros=False).fit(
        frame_of(X, y), "label")

    scored = model.predict(frame_of(X)).df()
    np.testing.assert_array_equal(scored["x5"].to_numpy(), X[:, 5])
    np.testing.assert_array_equal(scored["prediction"].to_numpy(),
                                  GaussianNB().fit(X, y).predict(X))


def test_far_from_the_origin_the_arrays_keep_scikit_learns_precision(con):
    # two classes one unit apart, 1e9 from the origin; the exact joint log-likelihood is
    # computed with fractions from the data, and each answer is compared with it
    offset = 1e9
    base = np.array([0.0, 0.5, 1.0, 1.5, 0.25, 1.0, 1.5, 2.0, 2.5, 1.25])
    X = (offset + base).reshape(-1, 1)
    y = np.repeat([0, 1], 5)
    rows = (offset + np.array([0.3, 1.1, 1.9])).reshape(-1, 1)
    values = [Fraction(v) for v in X[:, 0]]
    mean = {c: sum(values[i] for i in range(10) if y[i] == c) / 5 for c in (0, 1)}
    var = {c: sum((values[i] - mean[c]) ** 2 for i in range(10) if y[i] == c) / 5
           for c in (0, 1)}
    grand = sum(values) / 10
    epsilon = Fraction(1e-9) * sum((v - grand) ** 2 for v in values) / 10
    exact = np.array([[float(np.log(0.5) - 0.5 * np.log(2 * np.pi * float(var[c] + epsilon))
                             - (Fraction(r) - mean[c]) ** 2 / (2 * (var[c] + epsilon)))
                       for c in (0, 1)] for r in rows[:, 0]])
    sklearn_error = np.abs(GaussianNB().fit(X, y).predict_joint_log_proba(rows) - exact).max()
    model = sqlnb.NaiveBayes("far", con=con, scoring="arrays", sql_macros=False).fit(
        frame_of(X, y), "label")

    got = matrix(model.predict_joint_log_proba(frame_of(rows)), "jll_", [0, 1])
    assert np.abs(got - exact).max() <= max(sklearn_error, 1e-12)


def test_auto_keeps_the_compiled_form_for_narrow_models_only(con):
    X, y = load("iris")
    narrow = sqlnb.NaiveBayes("narrow", con=con, sql_macros=False).fit(frame_of(X, y), "label")
    X, y = load("digits")
    wide = sqlnb.NaiveBayes("wide", con=con, sql_macros=False).fit(frame_of(X, y), "label")

    assert strategy(narrow) == "compiled"  # 4 features x 3 classes
    assert strategy(wide) == "arrays"  # 64 features x 10 classes


def test_auto_scores_a_small_in_memory_input_to_a_narrow_model_with_the_arrays(con):
    X, y = load("iris")
    narrow = sqlnb.NaiveBayes("narrow", con=con, sql_macros=False).fit(frame_of(X, y), "label")
    rows = np.tile(X, (ARRAYS_MAX_ROWS // len(X) + 1, 1))  # just over the threshold
    con.from_df(frame_of(X[:20])).create("few_rows")

    assert strategy(narrow, frame_of(X[:20])) == "arrays"
    assert strategy(narrow, pa.Table.from_pandas(frame_of(X[:20]))) == "arrays"
    assert strategy(narrow, frame_of(rows)) == "compiled"
    assert strategy(narrow, "few_rows") == "compiled"  # a table's size is not looked up
    assert strategy(narrow) == "compiled"  # no source: the rule for large jobs


def test_auto_counts_the_rows_of_parquet_files_from_their_footers(con, tmp_path):
    X, y = load("iris")
    narrow = sqlnb.NaiveBayes("narrow", con=con, sql_macros=False).fit(frame_of(X, y), "label")
    small, large = tmp_path / "small.parquet", tmp_path / "large.parquet"
    frame_of(X[:20]).to_parquet(small)
    frame_of(np.tile(X, (ARRAYS_MAX_ROWS // len(X) + 1, 1))).to_parquet(large)

    assert strategy(narrow, str(small)) == "arrays"
    assert strategy(narrow, [str(small), str(small)]) == "arrays"  # 40 rows in all
    assert strategy(narrow, str(large)) == "compiled"
    assert strategy(narrow, str(tmp_path / "*.parquet")) == "compiled"  # both files


def test_auto_on_a_small_input_to_a_narrow_model_matches_sklearn(con):
    X, y = load("iris")
    reference = GaussianNB().fit(X, y)
    model = sqlnb.NaiveBayes("narrow", con=con, sql_macros=False).fit(frame_of(X, y), "label")

    assert strategy(model, frame_of(X)) == "arrays"
    assert_like(model, reference, X)


def test_models_the_arrays_do_not_cover_use_the_compiled_form(con):
    frame = pd.DataFrame({"colour": ["red", "blue", "red", "green"], "label": [0, 1, 0, 1]})
    model = sqlnb.NaiveBayes("cat", con=con, family="categorical", scoring="arrays",
                             sql_macros=False).fit(frame, "label")

    assert strategy(model) == "compiled"
    assert model.predict(frame).df()["prediction"].tolist() == [0, 1, 0, 1]


def test_an_unknown_strategy_is_refused():
    with pytest.raises(InvalidParameterError, match="scoring must be one of"):
        sqlnb.NaiveBayes("m", scoring="fast")


def test_bad_input_to_the_arrays_is_still_refused(con):
    X, y = load("iris")
    model = sqlnb.NaiveBayes("m", con=con, scoring="arrays", sql_macros=False).fit(
        frame_of(X, y), "label")
    with pytest.raises(InvalidDataError):
        model.predict(pd.DataFrame({"x0": ["a"], "x1": [1.0], "x2": [1.0], "x3": [1.0]}))


@pytest.mark.parametrize("scoring", STRATEGIES)
def test_a_refit_from_another_cursor_is_never_scored_with_stale_parameters(con, scoring):
    X, y = load("iris")
    scorer = sqlnb.NaiveBayes("shared", con=con, scoring=scoring, sql_macros=False)
    scorer.fit(frame_of(X, y), "label")
    scorer.predict(frame_of(X[:1])).fetchall()  # parameters cached
    writer = sqlnb.load(con.cursor(), "shared")
    writer.fit(frame_of(X[::-1] * 2.0, y), "label")  # another cursor, other data

    assert_like(scorer, GaussianNB().fit(X[::-1] * 2.0, y), X * 2.0)


def test_a_partial_fit_elsewhere_is_seen_by_a_cached_model(con):
    X, y = small_digits()
    scorer = sqlnb.NaiveBayes("grow", con=con, scoring="arrays", sql_macros=False)
    scorer.partial_fit(frame_of(X[:250], y[:250]), "label")
    scorer.predict(frame_of(X[:1])).fetchall()
    sqlnb.load(con, "grow").partial_fit(frame_of(X[250:], y[250:]), "label")

    assert_like(scorer, GaussianNB().fit(X, y), X)


def test_a_partial_fit_through_another_connection_to_the_file_is_seen(tmp_path):
    X, y = small_digits()
    path = str(tmp_path / "models.duckdb")
    scorer = sqlnb.NaiveBayes("grow", con=duckdb.connect(path))  # macros and parameter table
    scorer.partial_fit(frame_of(X[:250], y[:250]), "label")
    scorer.predict(frame_of(X[:1])).fetchall()  # metadata and parameters cached
    sqlnb.load(duckdb.connect(path), "grow").partial_fit(frame_of(X[250:], y[250:]), "label")

    assert_like(scorer, GaussianNB().fit(X, y), X)


def test_one_row_is_scored_with_the_parameters_of_the_latest_write(con):
    X, y = small_digits()
    scorer = sqlnb.NaiveBayes("grow", con=con)
    scorer.partial_fit(frame_of(X[:250], y[:250]), "label")
    first = scorer.predict_proba(frame_of(X[:1])).fetchall()
    sqlnb.NaiveBayes("grow", con=con.cursor()).partial_fit(frame_of(X[250:], y[250:]), "label")
    reference = GaussianNB().fit(X, y)

    np.testing.assert_allclose(matrix(scorer.predict_proba(frame_of(X[:1])), "proba_",
                                      scorer.classes_), reference.predict_proba(X[:1]), atol=1e-9)
    assert first != scorer.predict_proba(frame_of(X[:1])).fetchall()


def test_dropping_a_model_releases_its_cached_parameters(con):
    X, y = small_digits()
    model = sqlnb.NaiveBayes("gone", con=con).fit(frame_of(X, y), "label")
    model.predict(frame_of(X[:1])).fetchall()
    model.drop()

    assert model.context.cached_fitted_at is None
    with pytest.raises(sqlnb.errors.NotFittedError):
        model.predict(frame_of(X[:1]))


@pytest.mark.parametrize("scoring", STRATEGIES)
def test_a_missing_count_is_left_out_by_every_strategy(con, scoring):
    X = as_counts(load("wine")[0]).astype(float)[:, :4]
    y = load("wine")[1]
    reference = MultinomialNB().fit(X, y)
    model = sqlnb.NaiveBayes("m", con=con, family="multinomial", scoring=scoring).fit(
        frame_of(X, y), "label")
    rows = pa.table({"x0": [1.0, None], "x1": [2.0, 2.0], "x2": [0.0, 0.0], "x3": [3.0, 3.0]})

    got = matrix(model.predict_joint_log_proba(rows), "jll_", model.classes_)
    present = [1, 2, 3]  # the second row's x0 is missing: its term is left out
    expected = reference.class_log_prior_ + reference.feature_log_prob_[:, present] @ [2, 0, 3]
    np.testing.assert_allclose(got[1], expected, rtol=1e-12)
    np.testing.assert_allclose(got[0], reference.predict_joint_log_proba([[1, 2, 0, 3]])[0],
                               rtol=1e-12)


# The arrays score a Gaussian as inner products (sum a x'^2 - sum 2 a m x' + sum a m^2)
# when that keeps the digits, and from differences otherwise.
def test_gaussian_inner_products_keep_the_digits_of_the_digits_model(con):
    X, y = load("digits")  # many pixels constant in a class: variances of epsilon
    reference = GaussianNB().fit(X, y)
    model = sqlnb.NaiveBayes("d", con=con, scoring="arrays", sql_macros=False).fit(
        frame_of(X, y), "label")
    rows = pa.Table.from_pandas(frame_of(X[:300]))

    np.testing.assert_allclose(matrix(model.predict_proba(rows), "proba_", model.classes_),
                               reference.predict_proba(X[:300]), rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        matrix(model.predict_joint_log_proba(rows), "jll_", model.classes_),
        reference.predict_joint_log_proba(X[:300]), rtol=1e-9)


def test_a_feature_constant_at_different_values_per_class_is_scored_from_differences(con):
    # x0 is 0 in class 0 and 1000 in class 1: variance epsilon in both, so the inner
    # products would cancel ~1e9-sized terms; the differences keep every digit
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 20)
    X = np.column_stack([y * 1000.0, rng.normal(size=40) + y])
    reference = GaussianNB().fit(X, y)
    model = sqlnb.NaiveBayes("c", con=con, scoring="arrays", sql_macros=False).fit(
        frame_of(X, y), "label")
    rows = np.array([[0.0, 0.3], [1000.0, 0.7], [0.0, 1.2]])

    np.testing.assert_allclose(
        matrix(model.predict_joint_log_proba(pa.Table.from_pandas(frame_of(rows))), "jll_",
               [0, 1]),
        reference.predict_joint_log_proba(rows), rtol=1e-12)
