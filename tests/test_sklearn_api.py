"""The scikit-learn facade behaves as a scikit-learn estimator."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import load
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.naive_bayes import CategoricalNB as ReferenceCategoricalNB
from sklearn.naive_bayes import GaussianNB as ReferenceGaussianNB
from sklearn.naive_bayes import MultinomialNB as ReferenceMultinomialNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sqlnb.sklearn import CategoricalNB, GaussianNB, MultinomialNB


def test_params_clone_and_set_params():
    model = MultinomialNB(alpha=0.5, fit_prior=False)
    assert model.get_params() == {"alpha": 0.5, "force_alpha": True, "fit_prior": False,
                                  "class_prior": None}
    copy = clone(model).set_params(alpha=2.0)
    assert copy.alpha == 2.0 and model.alpha == 0.5


def test_pipeline_and_cross_validation_match_sklearn():
    X, y = load("wine")
    ours = cross_val_score(make_pipeline(StandardScaler(), GaussianNB()), X, y, cv=5)
    reference = cross_val_score(make_pipeline(StandardScaler(), ReferenceGaussianNB()), X, y,
                                cv=5)
    np.testing.assert_array_equal(ours, reference)


def test_grid_search_picks_what_sklearn_picks():
    X, y = load("digits")
    grid = {"alpha": [0.01, 0.1, 1.0, 10.0]}
    ours = GridSearchCV(MultinomialNB(), grid, cv=3).fit(X, y)
    reference = GridSearchCV(ReferenceMultinomialNB(), grid, cv=3).fit(X, y)
    assert ours.best_params_ == reference.best_params_
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               reference.cv_results_["mean_test_score"])


def test_dataframe_feature_names_and_score():
    X, y = load("iris")
    frame = pd.DataFrame(X, columns=["sl", "sw", "pl", "pw"])
    model = GaussianNB().fit(frame, y)
    assert list(model.feature_names_in_) == ["sl", "sw", "pl", "pw"]
    assert model.n_features_in_ == 4
    reference = ReferenceGaussianNB().fit(frame, y)
    assert model.score(frame, y) == reference.score(frame, y)
    with pytest.raises(ValueError, match="feature names"):
        model.predict(frame.rename(columns={"sl": "other"}))


def test_count_vectorizer_output_stays_sparse():
    docs = ["the cat sat", "the dog barked", "a cat and a dog", "dogs bark at cats",
            "the cat purred", "a dog growled"] * 5
    labels = ["cat", "dog", "both", "both", "cat", "dog"] * 5
    ours = make_pipeline(CountVectorizer(), MultinomialNB()).fit(docs, labels)
    reference = make_pipeline(CountVectorizer(), ReferenceMultinomialNB()).fit(docs, labels)
    assert list(ours.predict(docs)) == list(reference.predict(docs))
    np.testing.assert_allclose(ours.predict_proba(docs), reference.predict_proba(docs),
                               atol=1e-9)


def test_wrong_number_of_features_at_predict():
    X, y = load("iris")
    model = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])


def test_categorical_code_above_the_fitted_range_is_an_error():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    model = CategoricalNB().fit(X, [0, 1, 1, 0])
    reference = ReferenceCategoricalNB().fit(X, [0, 1, 1, 0])
    with pytest.raises(IndexError) as expected:
        reference.predict(np.array([[3, 0]]))
    with pytest.raises(IndexError, match=str(expected.value)):
        model.predict(np.array([[3, 0]]))


def test_predict_before_fit_is_sklearns_not_fitted_error():
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        GaussianNB().predict(np.zeros((1, 2)))
