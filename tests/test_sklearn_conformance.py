"""The facade raises and warns in scikit-learn's words, and keeps its dtypes and edge
cases: each test puts scikit-learn's estimator beside ours."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn import naive_bayes as reference
from sklearn.exceptions import DataConversionWarning

import sqlnb.sklearn as ours

X = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0], [2.0, 1.0, 0.0], [1.0, 1.0, 4.0]])
Y = np.array([0, 1, 0, 1])


def assert_same_error(make, call):
    """Our estimator raises the same exception type with the same message."""
    with pytest.raises(Exception) as expected:
        call(make(reference))
    with pytest.raises(type(expected.value), match=re.escape(str(expected.value))):
        call(make(ours))


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "CategoricalNB"])
def test_negative_values_message(name):
    assert_same_error(lambda m: getattr(m, name)(), lambda e: e.fit(X - 2, Y))


def test_number_of_priors_message():
    assert_same_error(lambda m: m.GaussianNB(priors=[0.2, 0.3, 0.5]), lambda e: e.fit(X, Y))
    assert_same_error(lambda m: m.MultinomialNB(class_prior=[1.0]), lambda e: e.fit(X, Y))


def test_priors_sum_and_sign_messages():
    assert_same_error(lambda m: m.GaussianNB(priors=[0.2, 0.3]), lambda e: e.fit(X, Y))
    assert_same_error(lambda m: m.GaussianNB(priors=[1.5, -0.5]), lambda e: e.fit(X, Y))


def test_alpha_array_messages():
    assert_same_error(lambda m: m.MultinomialNB(alpha=[1.0, 1.0]), lambda e: e.fit(X, Y))
    assert_same_error(lambda m: m.MultinomialNB(alpha=[1.0, -1.0, 1.0]), lambda e: e.fit(X, Y))


def test_parameter_constraint_message():
    assert_same_error(lambda m: m.BernoulliNB(alpha=-1.0), lambda e: e.fit(X, Y))
    assert_same_error(lambda m: m.GaussianNB(var_smoothing="a"), lambda e: e.fit(X, Y))


@pytest.mark.parametrize("name", ["GaussianNB", "MultinomialNB", "CategoricalNB"])
def test_continuous_target_message(name):
    assert_same_error(lambda m: getattr(m, name)(), lambda e: e.fit(X, [0.5, 1.5, 0.25, 2.5]))


def test_nan_in_target_message():
    assert_same_error(lambda m: m.GaussianNB(), lambda e: e.fit(X, [0, np.nan, 1, 0]))


def test_all_zero_sample_weights_message():
    assert_same_error(lambda m: m.BernoulliNB(), lambda e: e.fit(X, Y, sample_weight=np.zeros(4)))


def test_partial_fit_without_classes_message():
    assert_same_error(lambda m: m.MultinomialNB(), lambda e: e.partial_fit(X, Y))


def test_unknown_label_in_partial_fit_message():
    assert_same_error(lambda m: m.GaussianNB(),
                      lambda e: e.partial_fit(X, Y, classes=[0, 1]).partial_fit(X, Y + 1))


def test_column_target_warns_as_scikit_learn():
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        ours.GaussianNB().fit(X, Y[:, None])


def test_small_alpha_warning():
    with pytest.warns(UserWarning, match=re.escape("alpha too small will result in numeric "
                                                   "errors, setting alpha = 1.0e-10")):
        ours.MultinomialNB(alpha=0, force_alpha=False).fit(X, Y)


def test_float32_gaussian_attributes_stay_float32():
    X32 = np.random.default_rng(0).normal(size=(40, 3)).astype(np.float32)
    y = np.arange(40) % 2
    expected = reference.GaussianNB().fit(X32, y)
    model = ours.GaussianNB().fit(X32, y)
    for attribute in ("theta_", "var_", "class_count_", "class_prior_"):
        assert getattr(model, attribute).dtype == getattr(expected, attribute).dtype == np.float32
        np.testing.assert_allclose(getattr(model, attribute), getattr(expected, attribute),
                                   rtol=1e-6)
    assert model.predict_proba(X32).dtype == expected.predict_proba(X32).dtype
    np.testing.assert_array_equal(model.predict(X32), expected.predict(X32))


def test_one_class_complement_predicts_that_class():
    expected = reference.ComplementNB().fit(X, np.zeros(4, dtype=int))
    model = ours.ComplementNB().fit(X, np.zeros(4, dtype=int))
    np.testing.assert_array_equal(model.classes_, expected.classes_)
    np.testing.assert_array_equal(model.predict(X), expected.predict(X))
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X))
    np.testing.assert_allclose(model.feature_log_prob_, expected.feature_log_prob_, atol=1e-12)
    np.testing.assert_allclose(model.predict_joint_log_proba(X),
                               expected.predict_joint_log_proba(X), atol=1e-9)


def test_tags_match_scikit_learn():
    for name in ("GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB"):
        theirs = getattr(reference, name)().__sklearn_tags__()
        mine = getattr(ours, name)().__sklearn_tags__()
        assert mine.input_tags.sparse == theirs.input_tags.sparse, name
        assert mine.input_tags.positive_only == theirs.input_tags.positive_only, name
        assert mine.input_tags.categorical == theirs.input_tags.categorical, name
        assert mine.classifier_tags.poor_score == theirs.classifier_tags.poor_score, name


def test_partial_fit_after_a_failed_fit_compares_with_its_classes():
    # scikit-learn's failed fit keeps the classes it saw; partial_fit then checks them
    for module in (reference, ours):
        model = module.MultinomialNB(class_prior=[0.5, 0.5])
        model.fit([[0], [0], [1]], [0, 0, 1])
        with pytest.raises(ValueError, match="Number of priors must match number of classes"):
            model.fit([[0], [1], [2]], [0, 1, 2])
        with pytest.raises(ValueError, match="is not the same as on last call to partial_fit"):
            model.partial_fit([[0], [1]], [0, 1], classes=[0, 1])
