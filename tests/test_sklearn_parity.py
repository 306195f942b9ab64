"""scikit-learn is the oracle: the sklearn facade against sklearn.naive_bayes.

Every family, on the four bundled datasets and on generated data with sample weights,
explicit priors, fit_prior=False and small or per-feature alpha: identical predictions,
probabilities within 1e-9 absolute and fitted attributes within 1e-9 relative.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DATASETS, as_counts, load
from sklearn import naive_bayes as reference

import sqlnb.sklearn as ours

ATTRIBUTES = {
    "GaussianNB": ["classes_", "class_count_", "class_prior_", "theta_", "var_", "epsilon_"],
    "MultinomialNB": ["classes_", "class_count_", "class_log_prior_", "feature_count_",
                      "feature_log_prob_"],
    "ComplementNB": ["classes_", "class_count_", "class_log_prior_", "feature_count_",
                     "feature_log_prob_", "feature_all_"],
    "BernoulliNB": ["classes_", "class_count_", "class_log_prior_", "feature_count_",
                    "feature_log_prob_"],
    "CategoricalNB": ["classes_", "class_count_", "class_log_prior_", "category_count_",
                      "feature_log_prob_", "n_categories_"],
}


def assert_same_attribute(name, expected, actual):
    if isinstance(expected, list):
        assert len(expected) == len(actual), name
        for e, a in zip(expected, actual):
            assert_same_attribute(name, e, a)
        return
    expected, actual = np.asarray(expected), np.asarray(actual)
    assert expected.shape == actual.shape, name
    if expected.dtype.kind in "OUSb":
        assert np.array_equal(expected, actual), name
    else:
        np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-300, err_msg=name)


def assert_parity(estimator_name, params, X, y, sample_weight=None, X_test=None):
    expected = getattr(reference, estimator_name)(**params)
    actual = getattr(ours, estimator_name)(**params)
    kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
    expected.fit(X, y, **kwargs)
    actual.fit(X, y, **kwargs)
    X_test = X if X_test is None else X_test
    assert np.array_equal(expected.predict(X_test), actual.predict(X_test))
    np.testing.assert_allclose(actual.predict_proba(X_test), expected.predict_proba(X_test),
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(actual.predict_log_proba(X_test),
                               expected.predict_log_proba(X_test), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(actual.predict_joint_log_proba(X_test),
                               expected.predict_joint_log_proba(X_test), rtol=1e-9, atol=1e-9)
    for attribute in ATTRIBUTES[estimator_name]:
        assert_same_attribute(attribute, getattr(expected, attribute), getattr(actual, attribute))
    return expected, actual


def family_data(estimator_name, X):
    if estimator_name == "GaussianNB":
        return X
    if estimator_name == "BernoulliNB":
        return X  # BernoulliNB binarizes itself (threshold 0 by default)
    return as_counts(X)


@pytest.mark.parametrize("dataset", list(DATASETS))
@pytest.mark.parametrize("estimator_name", list(ATTRIBUTES))
def test_bundled_datasets(dataset, estimator_name):
    X, y = load(dataset)
    X = family_data(estimator_name, X)
    params = {"binarize": float(np.median(X))} if estimator_name == "BernoulliNB" else {}
    assert_parity(estimator_name, params, X, y)


@pytest.mark.parametrize("dataset", ["iris", "digits"])
@pytest.mark.parametrize("estimator_name", list(ATTRIBUTES))
def test_sample_weights(dataset, estimator_name):
    X, y = load(dataset)
    X = family_data(estimator_name, X)
    weights = np.random.default_rng(7).uniform(0.05, 4.0, size=len(y))
    assert_parity(estimator_name, {}, X, y, sample_weight=weights)


def generated(n=600, n_features=6, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n)
    centres = rng.normal(0, 3, size=(n_classes, n_features))
    X = centres[y] + rng.normal(0, 1 + y[:, None], size=(n, n_features))
    return X, y, rng


def test_gaussian_priors_and_var_smoothing():
    X, y, rng = generated()
    assert_parity("GaussianNB", {"priors": [0.5, 0.3, 0.2], "var_smoothing": 1e-3}, X, y,
                  sample_weight=rng.uniform(0.5, 2, len(y)))


@pytest.mark.parametrize("estimator_name", ["MultinomialNB", "ComplementNB", "BernoulliNB",
                                            "CategoricalNB"])
@pytest.mark.parametrize("params", [
    {"fit_prior": False},
    {"class_prior": [0.2, 0.5, 0.3]},
    {"alpha": 1e-12},
    {"alpha": 1e-12, "force_alpha": False},
    {"alpha": 0.3},
])
def test_discrete_hyperparameters(estimator_name, params):
    X, y, rng = generated()
    X = as_counts(X, levels=6)
    kwargs = {"binarize": 2.5} if estimator_name == "BernoulliNB" else {}
    if params.get("force_alpha") is False:
        with pytest.warns(UserWarning, match="alpha too small"):
            assert_parity(estimator_name, {**params, **kwargs}, X, y,
                          sample_weight=rng.uniform(0.5, 2, len(y)))
    else:
        assert_parity(estimator_name, {**params, **kwargs}, X, y,
                      sample_weight=rng.uniform(0.5, 2, len(y)))


@pytest.mark.parametrize("estimator_name", ["MultinomialNB", "ComplementNB"])
def test_vector_alpha(estimator_name):
    X, y, _ = generated()
    X = as_counts(X)
    alpha = np.linspace(0.1, 2.0, X.shape[1])
    assert_parity(estimator_name, {"alpha": alpha}, X, y)


def test_bernoulli_vector_alpha_follows_the_formula():
    # scikit-learn cannot broadcast a per-feature alpha in BernoulliNB (a deliberate
    # difference: sqlnb smooths feature f with alpha_f); check against the formula.
    X, y, _ = generated()
    X = as_counts(X)
    alpha = np.linspace(0.1, 2.0, X.shape[1])
    model = ours.BernoulliNB(alpha=alpha).fit(X, y)
    B = (X > 0).astype(float)
    counts = np.array([B[y == c].sum(axis=0) for c in np.unique(y)])
    class_count = np.bincount(y).astype(float)
    expected = np.log(counts + alpha) - np.log(class_count[:, None] + 2 * alpha)
    np.testing.assert_allclose(model.feature_log_prob_, expected, rtol=1e-12)


def test_complement_norm():
    X, y = load("digits")
    assert_parity("ComplementNB", {"norm": True}, X.astype(np.int64), y)


def test_bernoulli_without_binarize():
    X, y, _ = generated()
    X = (as_counts(X) > 2).astype(float)
    assert_parity("BernoulliNB", {"binarize": None}, X, y)


def test_categorical_min_categories_and_test_codes():
    X, y, _ = generated()
    X = as_counts(X, levels=4)
    X_test = np.array([[3] * X.shape[1], [0] * X.shape[1], [5] * X.shape[1]])
    assert_parity("CategoricalNB", {"min_categories": 7}, X, y, X_test=X_test)
    assert_parity("CategoricalNB", {"min_categories": np.arange(2, 2 + X.shape[1])}, X, y)


@pytest.mark.parametrize("labels", [
    np.array(["spam", "ham", "eggs"]),
    np.array([True, False, True]),
    np.array([-5, 10, 3]),
    np.array([1.0, -2.0, 3.0]),
])
def test_label_types(labels):
    X, y, _ = generated(n_classes=3)
    y_labels = labels[y] if labels.dtype != bool else labels[y % 2]
    for name in ATTRIBUTES:
        data = family_data(name, X) if name != "BernoulliNB" else X
        expected, _ = assert_parity(name, {}, data, y_labels)
        assert np.array_equal(expected.classes_, np.unique(y_labels))


@pytest.mark.parametrize("estimator_name", ["MultinomialNB", "ComplementNB", "BernoulliNB"])
def test_sparse_input(estimator_name):
    X, y = load("digits")
    X_sparse = sp.csr_matrix(X)
    weights = np.random.default_rng(3).uniform(0.5, 2, len(y))
    assert_parity(estimator_name, {}, X_sparse, y, sample_weight=weights)


def test_single_class_like_sklearn():
    X, _, _ = generated()
    y = np.zeros(len(X), dtype=int)
    assert_parity("GaussianNB", {}, X, y)
    assert_parity("MultinomialNB", {}, as_counts(X), y)


@pytest.mark.parametrize(("estimator_name", "params"), [
    ("GaussianNB", {"priors": [0.5, 0.5, 0.0]}),
    ("MultinomialNB", {"class_prior": [0.5, 0.5, 0.0]}),
    ("MultinomialNB", {"alpha": 0.0, "force_alpha": True}),
    ("ComplementNB", {"alpha": 0.0, "force_alpha": True}),
    ("BernoulliNB", {"alpha": 0.0, "force_alpha": True}),
    ("CategoricalNB", {"alpha": 0.0, "force_alpha": True}),
])
def test_a_zero_prior_or_a_zero_smoothed_count_has_a_log_of_minus_infinity(estimator_name,
                                                                            params):
    # log(0) is -inf, as scikit-learn has it, on every DuckDB release (some refuse ln(0))
    X = np.array([[0, 2, 1], [1, 0, 3], [0, 1, 0], [2, 0, 0], [0, 3, 1], [1, 1, 0]])
    y = np.array([0, 1, 2, 0, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scikit-learn's log(0)
        assert_parity(estimator_name, params, X, y)
