"""Model exchange with scikit-learn: sqlnb.from_sklearn and NaiveBayes.to_sklearn.

scikit-learn's own estimators are the oracle: a model built from one scores as it does
(probabilities within 1e-9, identical predictions), from Python and from SQL, and a
sqlnb model turned into one equals scikit-learn's fit on the same rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import as_counts, load
from sklearn import naive_bayes as reference

import sqlnb
from sqlnb.errors import InvalidParameterError, NotFittedError

FAMILIES = {
    "GaussianNB": "gaussian",
    "MultinomialNB": "multinomial",
    "ComplementNB": "complement",
    "BernoulliNB": "bernoulli",
    "CategoricalNB": "categorical",
}


def data(name):
    X, y = load("wine")
    if name == "GaussianNB":
        return X, y
    if name == "BernoulliNB":
        return X - X.mean(axis=0), y
    return as_counts(X), y


def proba_from_sql(model, X):
    frame = pd.DataFrame(X, columns=model.features_)
    result = model.predict_proba(frame).fetchnumpy()
    return np.column_stack([result[f"proba_{c}"] for c in model.classes_])


@pytest.mark.parametrize("name", FAMILIES)
def test_from_sklearn_scores_as_the_estimator(con, name):
    X, y = data(name)
    estimator = getattr(reference, name)().fit(X, y)
    model = sqlnb.from_sklearn(estimator, con=con, name="imported")
    assert model.meta["family"] == FAMILIES[name]
    assert model.features_ == [f"f{i}" for i in range(X.shape[1])]
    np.testing.assert_allclose(proba_from_sql(model, X), estimator.predict_proba(X),
                               rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", FAMILIES)
def test_round_trip_gives_back_an_equal_estimator(con, name):
    X, y = data(name)
    estimator = getattr(reference, name)().fit(X, y)
    back = sqlnb.from_sklearn(estimator, con=con, name="trip").to_sklearn()
    assert type(back) is type(estimator)
    assert back.get_params() == estimator.get_params()
    np.testing.assert_array_equal(back.predict(X), estimator.predict(X))
    np.testing.assert_allclose(back.predict_proba(X), estimator.predict_proba(X),
                               rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", FAMILIES)
def test_to_sklearn_equals_sklearn_fitted_on_the_same_rows(con, name):
    X, y = data(name)
    frame = pd.DataFrame(X, columns=[f"c{i}" for i in range(X.shape[1])]).assign(label=y)
    model = sqlnb.NaiveBayes("native", con=con, family=FAMILIES[name]).fit(frame, "label")
    ours = model.to_sklearn()
    expected = getattr(reference, name)().fit(frame.drop(columns="label"), y)
    assert list(ours.feature_names_in_) == list(expected.feature_names_in_)
    np.testing.assert_array_equal(ours.classes_, expected.classes_)
    np.testing.assert_allclose(ours.class_count_, expected.class_count_, rtol=1e-12)
    features = frame.drop(columns="label")
    np.testing.assert_array_equal(ours.predict(features), expected.predict(features))
    np.testing.assert_allclose(ours.predict_proba(features), expected.predict_proba(features),
                               rtol=0, atol=1e-9)


def test_feature_names_come_from_the_estimator(con):
    X, y = load("iris")
    frame = pd.DataFrame(X, columns=["sepal length", "sepal width", "petal length", "petal width"])
    model = sqlnb.from_sklearn(reference.GaussianNB().fit(frame, y), con=con, name="iris")
    assert model.features_ == list(frame.columns)


def test_imported_model_scores_from_plain_sql(con):
    X, y = load("iris")
    estimator = reference.GaussianNB().fit(X, y)
    sqlnb.from_sklearn(estimator, con=con, name="iris")
    con.register("flowers", pd.DataFrame(X[:10], columns=["f0", "f1", "f2", "f3"]))
    predicted = [row[0] for row in con.sql("SELECT iris_predict(t) FROM flowers t").fetchall()]
    assert predicted == estimator.predict(X[:10]).tolist()


def test_imported_model_grows_like_scikit_learns_partial_fit(con):
    X, y = load("iris")
    X = as_counts(X)
    estimator = reference.MultinomialNB().partial_fit(X[::2], y[::2], classes=[0, 1, 2])
    model = sqlnb.from_sklearn(estimator, con=con, name="grown")
    model.partial_fit(pd.DataFrame(X[1::2], columns=model.features_).assign(target=y[1::2]),
                      "target")
    estimator.partial_fit(X[1::2], y[1::2])
    np.testing.assert_allclose(proba_from_sql(model, X), estimator.predict_proba(X),
                               rtol=0, atol=1e-9)


def test_string_labels_and_float32_gaussian_round_trip(con):
    X, y = load("iris")
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    estimator = reference.GaussianNB().fit(X.astype(np.float32), labels)
    back = sqlnb.from_sklearn(estimator, con=con, name="names").to_sklearn()
    np.testing.assert_array_equal(back.classes_, estimator.classes_)
    np.testing.assert_array_equal(back.predict(X), estimator.predict(X))


def test_unfitted_estimator_is_refused(con):
    with pytest.raises(NotFittedError, match="fitted"):
        sqlnb.from_sklearn(reference.GaussianNB(), con=con, name="m")


def test_other_estimators_are_refused(con):
    from sklearn.dummy import DummyClassifier

    X, y = load("iris")
    with pytest.raises(InvalidParameterError, match="GaussianNB"):
        sqlnb.from_sklearn(DummyClassifier().fit(X, y), con=con, name="m")


def test_mixed_and_text_models_cannot_become_sklearn_estimators(con):
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "c": ["a", "b", "a", "b"],
                          "body": ["red apple", "green pear", "red cherry", "green lime"],
                          "y": [0, 1, 0, 1]})
    mixed = sqlnb.NaiveBayes("mixed", con=con, family="auto").fit(frame[["x", "c", "y"]], "y")
    with pytest.raises(InvalidParameterError, match="families"):
        mixed.to_sklearn()
    text = sqlnb.NaiveBayes("text", con=con, family="multinomial")
    text.fit(frame[["body", "y"]], "y", text="body")
    with pytest.raises(InvalidParameterError, match="text"):
        text.to_sklearn()


def test_categorical_values_other_than_codes_are_refused(con):
    frame = pd.DataFrame({"colour": ["red", "blue", "red", "green"], "y": [0, 1, 0, 1]})
    model = sqlnb.NaiveBayes("colours", con=con, family="categorical").fit(frame, "y")
    with pytest.raises(InvalidParameterError, match="OrdinalEncoder"):
        model.to_sklearn()


def test_a_sqlnb_sklearn_estimator_is_copied_exactly(con):
    import sqlnb.sklearn as ours

    X, y = load("iris")
    weights = np.linspace(0.5, 2.0, len(y))
    estimator = ours.GaussianNB().fit(X, y, sample_weight=weights)
    model = sqlnb.from_sklearn(estimator, con=con, name="copy")
    np.testing.assert_allclose(proba_from_sql(model, X), estimator.predict_proba(X),
                               rtol=0, atol=1e-12)
    back = model.to_sklearn()
    assert back.epsilon_ == estimator.epsilon_
    np.testing.assert_array_equal(back.var_, estimator.var_)
