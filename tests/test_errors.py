"""Bad input gets a clear sqlnb error and changes nothing; identifiers are just names."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import sqlnb
from sqlnb import errors


def frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    return pd.DataFrame({"a": np.abs(rng.normal(y, 1.0)), "b": rng.poisson(2 + y, n).astype(float),
                         "y": y})


def model_relations(con, name):
    return sorted(r[0] for r in con.sql(
        "SELECT table_name FROM information_schema.tables WHERE table_name LIKE ?",
        params=[f"{name}%"]).fetchall())


def snapshot(con, name):
    return {table: con.sql(f'SELECT * FROM "{table}" ORDER BY ALL').fetchall()
            for table in model_relations(con, name) if not table.endswith("_meta")}


def test_errors_share_one_base_class():
    for cls in (errors.InvalidParameterError, errors.UnknownColumnError, errors.InvalidDataError,
                errors.EmptyInputError, errors.NotFittedError, errors.ModelNotFoundError):
        assert issubclass(cls, errors.SqlnbError)


@pytest.mark.parametrize("call, error, message", [
    (lambda m, f: m.fit(f, "nope"), errors.UnknownColumnError, "target column 'nope'"),
    (lambda m, f: m.fit(f, "y", features=["a", "zzz"]), errors.UnknownColumnError, "zzz"),
    (lambda m, f: m.fit(f, "y", weight="w"), errors.UnknownColumnError, "weight column 'w'"),
    (lambda m, f: m.fit(f.iloc[:0], "y"), errors.EmptyInputError, "no rows"),
    (lambda m, f: m.fit(f.assign(y=None), "y"), errors.EmptyInputError, "only NULL"),
    (lambda m, f: m.fit(f[["y"]], "y"), errors.InvalidDataError, "no feature columns"),
    (lambda m, f: m.fit(f.assign(a=["x"] * len(f)), "y"), errors.InvalidDataError,
     "'a' has type VARCHAR"),
    (lambda m, f: m.fit(pa.Table.from_pandas(f).set_column(
        0, "a", pa.array(np.where(f.index == 3, np.nan, f.a))), "y"),
     errors.InvalidDataError, r"'a' has missing values \(NULL or NaN\)"),
    (lambda m, f: m.fit(f.assign(a=[None] + list(f.a[1:])), "y"), errors.InvalidDataError,
     "'a' has missing values"),
])
def test_fit_errors_are_clear_and_write_nothing(con, call, error, message):
    model = sqlnb.NaiveBayes("m", con=con, missing="error")
    with pytest.raises(error, match=message):
        call(model, frame())
    assert model_relations(con, "m") == []


@pytest.mark.parametrize("family", ["multinomial", "complement"])
def test_negative_counts_are_rejected(con, family):
    data = frame().assign(b=lambda f: f.b - 3)
    with pytest.raises(errors.InvalidDataError, match="'b' has negative values"):
        sqlnb.NaiveBayes("neg", con=con, family=family).fit(data, "y")


def test_complement_accepts_one_class_as_scikit_learn_does(con):
    model = sqlnb.NaiveBayes("one", con=con, family="complement").fit(frame().assign(y=1), "y")
    assert model.classes_ == [1]
    assert {row[-1] for row in model.predict(frame()).fetchall()} == {1}


def test_priors_must_match_the_classes(con):
    with pytest.raises(errors.InvalidParameterError, match="2 priors were given for 3 classes"):
        sqlnb.NaiveBayes("p", con=con, priors=[0.5, 0.5]).fit(frame(), "y")


@pytest.mark.parametrize("kwargs, message", [
    ({"family": "poissonish"}, "unknown family"),
    ({"alpha": 1.0}, "no hyperparameter alpha"),
    ({"var_smoothing": -1}, "var_smoothing"),
    ({"priors": [0.7, 0.7]}, "sum of the priors"),
    ({"family": "multinomial", "alpha": -1}, r"'alpha' parameter .* \[0.0, inf\)"),
    ({"family": "categorical", "unseen": "maybe"}, "unseen"),
])
def test_bad_hyperparameters(con, kwargs, message):
    with pytest.raises(errors.InvalidParameterError, match=message):
        sqlnb.NaiveBayes("h", con=con, **kwargs)


def test_predict_before_fit(con):
    with pytest.raises(errors.NotFittedError, match="not fitted"):
        sqlnb.NaiveBayes("unfitted", con=con).predict(frame())


def test_predict_on_a_source_lacking_a_feature(con):
    model = sqlnb.NaiveBayes("m", con=con).fit(frame(), "y")
    with pytest.raises(errors.UnknownColumnError, match=r"lacks feature column\(s\) \['b'\]"):
        model.predict(frame()[["a"]])


def test_load_of_a_missing_model(con):
    with pytest.raises(errors.ModelNotFoundError, match="no model named 'ghost'"):
        sqlnb.load(con, "ghost")


def test_failed_refit_leaves_the_previous_model_intact(con):
    model = sqlnb.NaiveBayes("kept", con=con, family="multinomial").fit(frame(), "y")
    before = snapshot(con, "kept")
    bad = frame(seed=1).assign(b=lambda f: -f.b)
    with pytest.raises(errors.InvalidDataError):
        model.fit(bad, "y")
    assert snapshot(con, "kept") == before
    assert model.predict(frame()).fetchall()  # still usable


def test_hostile_identifiers_are_just_names(con):
    hostile = 'a"; DROP TABLE t; --'
    con.execute("CREATE TABLE t AS SELECT 1 AS keep_me")
    data = frame().rename(columns={"a": hostile, "y": "label'); DROP TABLE t; --"})
    model = sqlnb.NaiveBayes('m"; DROP TABLE t; --', con=con)
    model.fit(data, "label'); DROP TABLE t; --")
    assert hostile in model.features_
    predicted = model.predict(data).df()
    assert hostile in predicted.columns and len(predicted) == len(data)
    assert con.sql("SELECT * FROM t").fetchall() == [(1,)]
    assert sqlnb.load(con, 'm"; DROP TABLE t; --').features_ == model.features_


def test_many_offending_columns_make_one_short_message(con):
    rng = np.random.default_rng(0)
    data = pd.DataFrame(-rng.random((10, 100)), columns=[f"x{i}" for i in range(100)])
    with pytest.raises(errors.InvalidDataError) as caught:
        sqlnb.NaiveBayes("wide", con=con, family="multinomial").fit(
            data.assign(y=np.arange(10) % 2), "y")
    assert str(caught.value) == (
        "cannot fit: features 'x0', 'x1', 'x2' and 97 more have negative values; "
        "multinomial naive Bayes needs non-negative counts"
    )
