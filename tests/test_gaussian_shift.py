"""Gaussian fitting and scoring on data that stresses their precision.

The fit scans once with a global shift per feature and scans again with per-class
shifts only when a class's sums would cancel; scoring folds 0.5 / var into one constant.
Either way scikit-learn is the oracle.
"""

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB as SkGaussianNB

from sqlnb.sklearn import GaussianNB


def _assert_parity(X, y, sample_weight=None):
    ours = GaussianNB().fit(X, y, sample_weight=sample_weight)
    theirs = SkGaussianNB().fit(X, y, sample_weight=sample_weight)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-9, atol=1e-300)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-9)
    np.testing.assert_allclose(ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X),
                               rtol=1e-9, atol=1e-9)


def _classes(rng, n, k):
    return rng.integers(0, k, size=n)


def test_well_separated_classes_far_from_zero():
    rng = np.random.default_rng(0)
    y = _classes(rng, 3000, 3)
    # class means 1e6 apart, unit spread: a single global shift would cancel badly
    X = 1e8 + y[:, None] * 1e6 + rng.normal(size=(3000, 4))
    _assert_parity(X, y)


def test_column_constant_within_each_class():
    rng = np.random.default_rng(1)
    y = _classes(rng, 2000, 4)
    constant = np.array([0.1, 1e5 / 3, -7.25, np.pi])[y]
    X = np.column_stack([constant, rng.normal(size=2000), rng.normal(size=2000) * 1e-3])
    _assert_parity(X, y)


def test_class_missing_from_the_pilot_rows():
    rng = np.random.default_rng(2)
    n = 6000
    y = np.zeros(n, dtype=int)
    y[5000:] = 1  # class 1 appears only after the pilot's first rows
    X = np.where(y[:, None] == 1, 5e7, 0.0) + rng.normal(size=(n, 3)) * np.array([1.0, 1e-2, 1e3])
    _assert_parity(X, y)


@pytest.mark.parametrize("seed", [3, 4])
def test_weighted_far_means(seed):
    rng = np.random.default_rng(seed)
    y = _classes(rng, 2500, 3)
    X = -3e7 + y[:, None] * 2e5 + rng.normal(size=(2500, 3))
    weights = rng.uniform(0.1, 3.0, size=2500)
    _assert_parity(X, y, sample_weight=weights)


def test_ordinary_gaussian_data():
    rng = np.random.default_rng(5)
    y = _classes(rng, 4000, 5)
    X = y[:, None] * 0.7 + rng.normal(size=(4000, 6))
    _assert_parity(X, y)


def test_batches_far_from_zero_are_summed_around_the_learned_means():
    # later batches take their shift from the model's statistics, not from their rows
    rng = np.random.default_rng(6)
    y = _classes(rng, 3000, 3)
    X = 1e9 + y[:, None] * 1e3 + rng.normal(size=(3000, 3)) * np.array([1.0, 1e-2, 1e2])
    ours = GaussianNB()
    for rows in np.array_split(np.arange(3000), 5):
        ours.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    theirs = SkGaussianNB().fit(X, y)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-6, atol=1e-300)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
