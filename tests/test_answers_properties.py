"""Property-based checks of the answers (Hypothesis): generated weights, categories
and labels, checked against scikit-learn or against invariants. Bounded by the Hypothesis
profile of tests/conftest.py."""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import flat
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.naive_bayes import MultinomialNB

import sqlnb
from sqlnb import errors

BOUNDED = settings()  # the profile tests/conftest.py loads: a bounded budget
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@st.composite
def weighted_counts(draw):
    n = draw(st.integers(4, 25))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 5), min_size=3, max_size=3),
                               min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.floats(0.1, 10.0), min_size=n, max_size=n)))
    return X, y, w


@BOUNDED
@given(weighted_counts())
def test_weighted_multinomial_matches_scikit_learn(data):
    X, y, w = data
    frame = pd.DataFrame(X, columns=["f0", "f1", "f2"]).assign(y=y, w=w)
    model = sqlnb.NaiveBayes("m", con=duckdb.connect(), family="multinomial")
    model.fit(frame, "y", weight="w")
    expected = MultinomialNB().fit(X, y, sample_weight=w).predict_proba(X)
    got = np.array([r[-len(model.classes_):] for r in model.predict_proba(frame).fetchall()])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)


@BOUNDED
@given(st.lists(st.one_of(st.floats(0, 5), st.just(-1.0), st.just(float("nan")), st.none()),
                min_size=2, max_size=12).filter(
    lambda ws: any(w is None or math.isnan(w) or w < 0 for w in ws)))
def test_any_invalid_weight_is_refused_and_nothing_is_written(weights):
    con = duckdb.connect()
    con.execute("CREATE TABLE t (x DOUBLE, y INTEGER, w DOUBLE)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)",
                    [(float(i), i % 2, w) for i, w in enumerate(weights)])
    with pytest.raises(errors.InvalidDataError, match="weight column 'w'"):
        sqlnb.NaiveBayes("m", con=con, family="gaussian").fit("t", "y", weight="w")
    assert con.sql("SELECT table_name FROM duckdb_tables()").fetchall() == [("t",)]


@BOUNDED
@given(st.lists(st.text(alphabet="ab '\"-*/" + LINE_BREAKS, min_size=1, max_size=4),
                min_size=2, max_size=6, unique=True))
def test_the_macros_find_every_category_seen_at_fit(categories):
    con = duckdb.connect()
    n = 3 * len(categories)
    frame = pd.DataFrame({"c": [categories[i % len(categories)] for i in range(n)],
                          "y": [i % 2 for i in range(n)]})
    con.register("frame", frame)
    model = sqlnb.NaiveBayes("m", con=con, family="categorical", unseen="error")
    model.fit("frame", "y")
    expected = [r[-2:] for r in model.predict_proba("frame").fetchall()]
    via_macro = [(r[0]["0"], r[0]["1"]) for r in
                 con.sql("SELECT m_predict_proba(t) FROM frame t").fetchall()]
    assert flat(via_macro) == pytest.approx(flat(expected), abs=1e-12)
