"""Property-based tests (Hypothesis) over names, labels, values and weights, and over
threads reading and writing one model: checked against scikit-learn, or against invariants
(row order kept, incremental equals batch, nothing outside the model changed). Bounded
by the profile tests/conftest.py loads."""

from __future__ import annotations

import gc

import duckdb
import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st
from sklearn.naive_bayes import GaussianNB, MultinomialNB

import sqlnb

LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
HOSTILE = st.text(alphabet=st.sampled_from(list("aZ_ 9'\";-*/()é" + LINE_BREAKS)),
                  min_size=1, max_size=8)


def catalog(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """Every relation and macro of the database, with a checksum of each table's rows."""
    names = con.execute(
        "SELECT 'table', table_name FROM duckdb_tables() UNION ALL "
        "SELECT 'view', view_name FROM duckdb_views() WHERE NOT internal UNION ALL "
        "SELECT 'macro', function_name FROM duckdb_functions() "
        "WHERE function_type IN ('macro', 'table_macro') AND NOT internal ORDER BY ALL"
    ).fetchall()
    return names + con.execute("SELECT count(*), sum(id) FROM users").fetchall()


@given(name=HOSTILE)
def test_any_model_name_fits_scores_and_drops_without_touching_anything_else(name):
    con = duckdb.connect()
    con.execute("CREATE TABLE users AS SELECT range AS id FROM range(5)")
    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i AS DOUBLE) AS x FROM range(10) r(i)")
    before = catalog(con)
    model = sqlnb.NaiveBayes(name, con=con).fit("t", "y")
    assert len(model.predict("t").fetchall()) == 10
    model.drop()
    assert catalog(con) == before


@st.composite
def labelled_points(draw):
    labels = draw(st.lists(HOSTILE, min_size=2, max_size=4, unique=True))
    per_class = draw(st.integers(2, 4))
    rows = [(label, 10.0 * i + j * 0.5 + draw(st.floats(0, 0.1)))
            for i, label in enumerate(labels) for j in range(per_class)]
    return labels, rows


@given(labelled_points())
def test_any_labels_predict_as_scikit_learn(data):
    labels, rows = data
    frame = pd.DataFrame(rows, columns=["y", "x"])
    model = sqlnb.NaiveBayes("m", con=duckdb.connect()).fit(frame, "y")
    theirs = GaussianNB().fit(frame[["x"]].to_numpy(), frame["y"].to_numpy())
    assert model.classes_ == sorted(labels) == list(theirs.classes_)
    predicted = [row[-1] for row in model.predict(frame).fetchall()]
    assert predicted == list(theirs.predict(frame[["x"]].to_numpy()))


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5), st.sampled_from("ab")),
                min_size=4, max_size=30),
       st.booleans())
def test_predictions_keep_the_row_order_of_the_source(rows, grouped):
    con = duckdb.connect()
    frame = pd.DataFrame(rows, columns=["g", "x", "y"]).assign(row=range(len(rows)))
    if frame["y"].nunique() < 2:
        frame.loc[0, "y"] = "b" if frame.loc[0, "y"] == "a" else "a"
    model = sqlnb.NaiveBayes("m", con=con, family="multinomial")
    model.fit(frame, "y", features=["x"], group_by="g" if grouped else None)
    scored = model.predict(frame.sample(frac=1, random_state=len(rows))).fetchall()
    shuffled = frame.sample(frac=1, random_state=len(rows))
    assert [row[3] for row in scored] == list(shuffled["row"])


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.sampled_from("abc"),
                          st.floats(0.25, 4.0)),
                min_size=4, max_size=30),
       st.integers(1, 3))
def test_partial_fit_in_batches_equals_one_fit_and_scikit_learn(rows, n_batches):
    frame = pd.DataFrame(rows, columns=["f0", "f1", "y", "w"])
    con = duckdb.connect()
    batch = sqlnb.NaiveBayes("whole", con=con, family="multinomial")
    batch.fit(frame, "y", weight="w")
    incremental = sqlnb.NaiveBayes("parts", con=con, family="multinomial")
    size = -(-len(frame) // n_batches)
    for start in range(0, len(frame), size):
        incremental.partial_fit(frame.iloc[start:start + size], "y", weight="w")
    X, y, w = frame[["f0", "f1"]].to_numpy(), frame["y"].to_numpy(), frame["w"].to_numpy()
    expected = MultinomialNB().fit(X, y, sample_weight=w).predict_proba(X)
    for model in (batch, incremental):
        got = np.array([row[-len(model.classes_):]
                        for row in model.predict_proba(frame).fetchall()])
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)


READER_STEPS = st.sampled_from(["predict", "predict frame", "load", "collect"])
WRITER_STEPS = st.sampled_from(["fit 0", "fit 1", "collect"])


@given(writer_steps=st.lists(WRITER_STEPS, min_size=1, max_size=5),
       reader_steps=st.lists(st.lists(READER_STEPS, min_size=1, max_size=6),
                             min_size=1, max_size=2))
def test_threads_reading_while_one_refits_see_one_version_and_no_raw_error(writer_steps,
                                                                           reader_steps):
    """A writer refits a model (with one of two datasets) on its cursor while readers
    predict with it on theirs, and garbage is collected in any of the threads: every
    answer is one fitted version's (scikit-learn's), and no call raises."""
    from test_threads import QUERY, run_in_threads, versions, which_version

    tables, oracles = versions()
    con = duckdb.connect()
    sqlnb.NaiveBayes("m", con=con).fit(tables[0], "y")

    def writer():
        model = sqlnb.NaiveBayes("m", con=con.cursor())
        for step in writer_steps:
            if step == "collect":
                gc.collect()
            else:
                model.fit(tables[int(step.split()[1])], "y")

    def reader(steps):
        def read():
            cursor = con.cursor()
            model = sqlnb.load(cursor, "m")
            for step in steps:
                if step == "predict":
                    assert which_version(model, oracles) in (0, 1)
                elif step == "predict frame":
                    assert which_version(model, oracles, QUERY.to_pandas()) in (0, 1)
                elif step == "load":
                    model = sqlnb.load(cursor, "m")
                else:
                    gc.collect()
        return read

    assert run_in_threads(writer, *[reader(steps) for steps in reader_steps]) == []
