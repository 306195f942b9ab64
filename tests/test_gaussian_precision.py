"""Gaussian precision far from the origin, against an exact reference.

Features offset by 1e6 or 1e9 with a small spread: every fitted number (theta_, var_,
epsilon_) and the probabilities are compared with the same quantities computed exactly
from the very same doubles (fractions.Fraction; probabilities in 50-digit decimals). The
target is "at least as good as scikit-learn's": each test computes both errors
and shows them in its message.
"""

from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB as SkGaussianNB

from sqlnb.sklearn import GaussianNB

VAR_SMOOTHING = Fraction(1e-9)  # the double scikit-learn multiplies by, exactly
CLASSES = [0, 1, 2]


def _data(offset, weighted, seed=0, n=240):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = offset + y[:, None] * 0.5 + rng.normal(size=(n, 3)) * np.array([1.0, 0.1, 3.0])
    weights = rng.uniform(0.2, 3.0, n) if weighted else None
    return X, y, weights


def _exact_moments(X, y, weights):
    """Per class: the exact weighted mean and variance of each feature."""
    w = np.ones(len(y)) if weights is None else weights
    theta, var = [], []
    for c in CLASSES:
        rows = [([Fraction(v) for v in X[i]], Fraction(w[i])) for i in np.flatnonzero(y == c)]
        total = sum(wi for _, wi in rows)
        means = [sum(wi * x[j] for x, wi in rows) / total for j in range(X.shape[1])]
        theta.append(means)
        var.append([sum(wi * (x[j] - means[j]) ** 2 for x, wi in rows) / total
                    for j in range(X.shape[1])])
    return theta, var


def _exact_epsilon(X):
    """var_smoothing x the largest (unweighted) feature variance, exactly."""
    columns = [[Fraction(v) for v in X[:, j]] for j in range(X.shape[1])]
    variances = []
    for column in columns:
        mean = sum(column) / len(column)
        variances.append(sum((v - mean) ** 2 for v in column) / len(column))
    return VAR_SMOOTHING * max(variances)


def _worst(estimate, exact):
    """The largest relative error of a matrix (or number) against exact fractions."""
    estimate, exact = np.atleast_2d(estimate), exact if isinstance(exact, list) else [[exact]]
    return max(abs(float((Fraction(float(estimate[i][j])) - e) / e))
               for i, row in enumerate(exact) for j, e in enumerate(row))


def _exact_proba(X, theta, var, prior):
    """Exact-parameter probabilities in 50-digit decimals (2 pi cancels between classes)."""
    def dec(f):
        return Decimal(f.numerator) / Decimal(f.denominator)

    out = []
    with localcontext() as ctx:
        ctx.prec = 50
        for x in X:
            jll = []
            for c in range(len(theta)):
                total = dec(prior[c]).ln()
                for j, v in enumerate(x):
                    total -= (dec(var[c][j]).ln() + dec((Fraction(v) - theta[c][j]) ** 2
                                                         / var[c][j])) / 2
                jll.append(total)
            top = max(jll)
            e = [(t - top).exp() for t in jll]
            out.append([float(v / sum(e)) for v in e])
    return np.array(out)


def _errors(estimator, theta, var, epsilon):
    smoothed = [[v + epsilon for v in row] for row in var]
    return {"theta_": _worst(estimator.theta_, theta), "var_": _worst(estimator.var_, smoothed),
            "epsilon_": _worst(estimator.epsilon_, epsilon)}


def _assert_no_worse(ours, theirs, rows):
    """sqlnb's error at most scikit-learn's, or within the rounding of a sum over the rows
    (one unit in the last place per row: sqlnb sums in one pass around a shift, scikit-learn
    in two, so either may be ahead by that much)."""
    floor = rows * np.finfo(float).eps
    for key in ours:
        assert ours[key] <= max(theirs[key], floor), \
            f"{key}: sqlnb's relative error {ours[key]:.2e}, scikit-learn's {theirs[key]:.2e}"


@pytest.mark.parametrize("offset", [1e6, 1e9])
@pytest.mark.parametrize("weighted", [False, True])
def test_fit_far_from_the_origin_is_as_exact_as_scikit_learn(offset, weighted):
    X, y, weights = _data(offset, weighted)
    theta, var = _exact_moments(X, y, weights)
    epsilon = _exact_epsilon(X)
    ours = GaussianNB().fit(X, y, sample_weight=weights)
    theirs = SkGaussianNB().fit(X, y, sample_weight=weights)
    _assert_no_worse(_errors(ours, theta, var, epsilon), _errors(theirs, theta, var, epsilon),
                     len(y))


@pytest.mark.parametrize("offset", [1e6, 1e9])
def test_epsilon_far_from_the_origin_keeps_its_digits(offset):
    # the overall variance is pooled from the stored class means: relative to the
    # feature's origin they keep their digits (stored as plain doubles near 1e9 they
    # lost ~7, an error of ~2e-9 here)
    X, y, _ = _data(offset, False, seed=1)
    ours = GaussianNB().fit(X, y)
    assert _worst(ours.epsilon_, _exact_epsilon(X)) < 1e-14


@pytest.mark.parametrize("offset", [1e6, 1e9])
@pytest.mark.parametrize("weighted", [False, True])
def test_partial_fit_in_batches_is_as_exact_as_scikit_learn(offset, weighted):
    X, y, weights = _data(offset, weighted, seed=2)
    batches = np.array_split(np.arange(len(y)), 4)
    ours, theirs = GaussianNB(), SkGaussianNB()
    for rows in batches:
        w = None if weights is None else weights[rows]
        ours.partial_fit(X[rows], y[rows], classes=CLASSES, sample_weight=w)
        theirs.partial_fit(X[rows], y[rows], classes=CLASSES, sample_weight=w)
    theta, var = _exact_moments(X, y, weights)
    # sqlnb's epsilon_ is that of all the rows learned; scikit-learn's that of the last batch
    _assert_no_worse(_errors(ours, theta, var, _exact_epsilon(X)),
                     _errors(theirs, theta, var, _exact_epsilon(X[batches[-1]])), len(y))


@pytest.mark.parametrize("offset", [1e6, 1e9])
def test_probabilities_far_from_the_origin_are_as_exact_as_scikit_learn(offset):
    X, y, weights = _data(offset, True, seed=3, n=120)
    theta, var = _exact_moments(X, y, weights)
    epsilon = _exact_epsilon(X)
    prior = [sum(Fraction(w) for w in weights[y == c]) / sum(Fraction(w) for w in weights)
             for c in CLASSES]
    exact = _exact_proba(X, theta, [[v + epsilon for v in row] for row in var], prior)
    ours = np.abs(GaussianNB().fit(X, y, sample_weight=weights).predict_proba(X) - exact).max()
    theirs = np.abs(SkGaussianNB().fit(X, y, sample_weight=weights).predict_proba(X)
                    - exact).max()
    assert ours <= max(theirs, len(y) * np.finfo(float).eps), \
        f"probabilities: sqlnb's largest error {ours:.2e}, scikit-learn's {theirs:.2e}"


@pytest.mark.parametrize("copy", ["export", "pickle"])
def test_a_copied_model_keeps_its_origins_and_updates_exactly(tmp_path, copy):
    # the origins travel with the metadata: a copy updated at a 1e9 offset stays exact
    import pickle

    import duckdb
    import pandas as pd

    import sqlnb

    X, y, _ = _data(1e9, False, seed=4)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2], "y": y})
    first, second = frame.iloc[:120], frame.iloc[120:]
    if copy == "export":
        model = sqlnb.NaiveBayes("m", con=duckdb.connect()).fit(first, "y")
        model.export(tmp_path / "m")
        copied = sqlnb.import_model(duckdb.connect(), tmp_path / "m")
        copied.partial_fit(second, "y")
        epsilon = copied.to_sklearn().epsilon_
    else:
        estimator = pickle.loads(pickle.dumps(GaussianNB().partial_fit(
            first[["a", "b", "c"]].to_numpy(), first["y"].to_numpy(), classes=CLASSES)))
        estimator.partial_fit(second[["a", "b", "c"]].to_numpy(), second["y"].to_numpy())
        epsilon = estimator.epsilon_
    assert _worst(epsilon, _exact_epsilon(X)) < 1e-14


def _separated(seed, weighted, n=240):
    """Classes several spreads apart near 1e9 (as the pixels of load_digits are: a feature
    near zero in one class and large in another), so one shared shift is far from some
    class's mean relative to its spread."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = (1e9 + y[:, None] * np.array([6.0, 3.0, 0.0])
         + rng.normal(size=(n, 3)) * np.array([0.3, 0.05, 1.0]))
    return X, y, rng.uniform(0.2, 3.0, n) if weighted else None


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_classes_far_apart_keep_every_digit_of_their_variance(seed, weighted):
    # a class mean 20 spreads from the shared shift: its one-pass sums would lose ~2.6
    # digits (a relative error of ~1e-13 in var_); such features are summed again around
    # each class's mean, which leaves a few roundings (scikit-learn here: ~1e-11)
    X, y, weights = _separated(seed, weighted)
    theta, var = _exact_moments(X, y, weights)
    ours = _errors(GaussianNB().fit(X, y, sample_weight=weights), theta, var, _exact_epsilon(X))
    assert ours["var_"] < 20 * np.finfo(float).eps, ours
    assert ours["theta_"] < 4 * np.finfo(float).eps, ours


def test_digits_far_from_the_origin_are_as_exact_as_scikit_learn():
    # load_digits + 1e9 (exact integers in float64): each class's variance exactly, with
    # integer arithmetic, beside both estimators' var_ (the benchmark's precision check)
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = X + 1e9
    values = X.astype(np.int64) - 10**9  # the variance does not move with the offset

    def exact_variance(column):
        n, s, s2 = len(column), int(column.sum()), int((column * column).sum())
        return Fraction(n * s2 - s * s, n * n)

    epsilon = VAR_SMOOTHING * max(exact_variance(values[:, j]) for j in range(X.shape[1]))
    exact = [[exact_variance(values[y == c, j]) + epsilon for j in range(X.shape[1])]
             for c in np.unique(y)]
    ours = _worst(GaussianNB().fit(X, y).var_, exact)
    theirs = _worst(SkGaussianNB().fit(X, y).var_, exact)
    assert ours <= theirs, f"sqlnb's relative error {ours:.2e}, scikit-learn's {theirs:.2e}"
    assert ours < 1e-13
