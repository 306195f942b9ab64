"""Models wider than DuckDB's expression depth limit (1,000) still score, and match
scikit-learn: the per-class sums are grouped in parentheses past 256 terms."""

import numpy as np
import pytest
from sklearn import naive_bayes as sk

from sqlnb import sklearn as ours

N_FEATURES = 1100


@pytest.mark.parametrize("name", ["GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB"])
def test_more_features_than_the_expression_depth_limit(name):
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, 300)
    if name == "GaussianNB":
        X = rng.normal(size=(300, N_FEATURES)) + y[:, None] * 0.05
    else:
        X = rng.poisson(1.0 + y[:, None] * 0.1, size=(300, N_FEATURES))
    theirs = getattr(sk, name)().fit(X, y)
    mine = getattr(ours, name)().fit(X, y)
    np.testing.assert_array_equal(mine.predict(X), theirs.predict(X))
    np.testing.assert_allclose(mine.predict_proba(X), theirs.predict_proba(X), atol=1e-9)
