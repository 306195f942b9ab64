"""scikit-learn's own estimator checks, every one of them, for the five estimators.

No check is skipped and none is expected to fail: ``parametrize_with_checks`` runs the
same suite scikit-learn runs on ``sklearn.naive_bayes``. The array-API check (NumPy
inputs with array-API dispatch on) skips itself unless ``SCIPY_ARRAY_API`` is set, so it
is set while each check runs.
"""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from sqlnb.sklearn import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB


@parametrize_with_checks(
    [GaussianNB(), MultinomialNB(), ComplementNB(), BernoulliNB(), CategoricalNB()]
)
def test_sklearn_estimator_check(estimator, check, monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    check(estimator)
