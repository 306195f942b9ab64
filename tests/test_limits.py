"""Resource limits: what could crash or run out of memory works by design, or stops early
with an error that says what to do."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.naive_bayes import MultinomialNB

import sqlnb


def test_a_thousand_classes_fit_and_score_like_scikit_learn(con):
    # The log-sum-exp over the classes used to be one chain of 1,000 additions, deeper
    # than DuckDB's expression depth limit; it is now a balanced tree of sums.
    rng = np.random.default_rng(3)
    n_classes = 1000
    y = np.repeat(np.arange(n_classes), 2)
    X = rng.integers(0, 60, size=(y.size, 2))
    con.execute("CREATE TABLE t AS SELECT * FROM (SELECT unnest(?) AS y, unnest(?) AS a, "
                "unnest(?) AS b)", [y.tolist(), X[:, 0].tolist(), X[:, 1].tolist()])
    model = sqlnb.NaiveBayes("many", con=con, family="multinomial").fit("t", "y")
    theirs = MultinomialNB().fit(X, y)

    rows = model.predict_proba("t").fetchall()
    ours = np.array([row[3:] for row in rows])
    assert ours.shape == (y.size, n_classes)
    np.testing.assert_allclose(ours, theirs.predict_proba(X), rtol=0, atol=1e-9)
    # with 1,000 classes on two features some classes tie to the last bit: compare the
    # predictions where scikit-learn's best class leads the next one clearly
    jll = np.sort(theirs.predict_joint_log_proba(X), axis=1)
    clear = jll[:, -1] - jll[:, -2] > 1e-9
    predicted = np.array([row[-1] for row in model.predict("t").fetchall()])
    assert clear.sum() > 1500
    np.testing.assert_array_equal(predicted[clear], theirs.predict(X)[clear])


def registered_views(con) -> int:
    return con.execute("SELECT count(*) FROM duckdb_views() "
                       "WHERE view_name LIKE '__sqlnb_source%'").fetchall()[0][0]


@pytest.mark.parametrize("scoring", ["compiled", "arrays"])
@pytest.mark.parametrize("kind", ["pandas", "arrow", "polars", "relation"])
def test_scoring_python_tables_in_a_loop_leaves_no_registration_behind(con, kind, scoring):
    import gc
    import weakref

    import pandas as pd
    import polars as pl
    import pyarrow as pa

    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i AS DOUBLE) AS x FROM range(20) r(i)")
    model = sqlnb.NaiveBayes("m", con=con, scoring=scoring).fit("t", "y")
    make = {"pandas": pd.DataFrame, "arrow": pa.table, "polars": pl.DataFrame,
            "relation": lambda d: con.sql("SELECT unnest(?) AS x", params=[d["x"]])}[kind]
    alive = []
    for i in range(5):
        frame = make({"x": [float(i), 10.0 + i]})
        if kind != "relation":
            alive.append(weakref.ref(frame))
        # each result is still lazy and complete after the call returned
        assert [row[-1] for row in model.predict(frame).fetchall()] == [0, 1]
        assert registered_views(con) == 0
    del frame
    gc.collect()
    assert [ref() for ref in alive] == [None] * len(alive)


def test_a_lazy_result_keeps_reading_its_data_frame(con):
    import pandas as pd

    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i AS DOUBLE) AS x FROM range(20) r(i)")
    model = sqlnb.NaiveBayes("m", con=con).fit("t", "y")
    result = model.predict_proba(pd.DataFrame({"x": [1.0, 18.0]}))
    assert registered_views(con) == 0
    assert [round(row[1]) for row in result.fetchall()] == [1, 0]
    assert [round(row[1]) for row in result.fetchall()] == [1, 0]  # read again


def test_an_arrays_result_holds_a_large_data_frame_until_it_is_dropped(con):
    import gc

    import pandas as pd

    from sqlnb.engines.source import EAGER_ROWS

    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i AS DOUBLE) AS x FROM range(20) r(i)")
    model = sqlnb.NaiveBayes("m", con=con, scoring="arrays").fit("t", "y")
    rows = EAGER_ROWS + 1  # larger inputs stay lazy
    result = model.predict_proba(pd.DataFrame({"x": [1.0, 18.0] * (rows // 2 + 1)}))
    # bound parameters need a named view: it lives exactly as long as the result
    assert registered_views(con) == 1
    assert [round(row[1]) for row in result.limit(2).fetchall()] == [1, 0]
    assert [round(row[1]) for row in result.limit(2).fetchall()] == [1, 0]  # read again
    del result
    gc.collect()
    assert registered_views(con) == 0


def test_a_small_data_frame_is_scored_at_once_and_leaves_no_view(con):
    import pandas as pd

    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i AS DOUBLE) AS x FROM range(20) r(i)")
    model = sqlnb.NaiveBayes("m", con=con, scoring="arrays").fit("t", "y")
    result = model.predict_proba(pd.DataFrame({"x": [1.0, 18.0]}))
    assert registered_views(con) == 0
    assert [round(row[1]) for row in result.fetchall()] == [1, 0]
    assert [round(row[1]) for row in result.fetchall()] == [1, 0]  # read again


def stray_code_table(con):
    # an integer category column whose codes are 0..4, but one row has 1,000,000 (an id
    # or a zip code mistaken for a code): as codes 0..max it would be a million categories
    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, "
                "CASE WHEN i = 0 THEN 1000000 ELSE i % 5 END AS k FROM range(60) r(i)")


def test_a_huge_category_code_is_refused_naming_the_column_and_the_code(con):
    stray_code_table(con)
    with pytest.raises(sqlnb.errors.InvalidDataError,
                       match=r"'k' has the category code 1000000.*value_columns"):
        sqlnb.NaiveBayes("m", con=con, family="categorical").fit("t", "y")
    assert con.execute("SELECT count(*) FROM duckdb_tables() "
                       "WHERE table_name LIKE 'm\\_%' ESCAPE '\\'").fetchall() == [(0,)]


def test_a_huge_category_code_is_refused_by_partial_fit_and_mixed_models(con):
    stray_code_table(con)
    with pytest.raises(sqlnb.errors.InvalidDataError, match="category code 1000000"):
        sqlnb.NaiveBayes("p", con=con, family="categorical").partial_fit("t", "y")
    with pytest.raises(sqlnb.errors.InvalidDataError, match="category code 1000000"):
        sqlnb.NaiveBayes("a", con=con, family="auto",
                         families={"k": "categorical"}).fit("t", "y")


def test_min_categories_beyond_the_limit_is_refused_before_any_scan(con):
    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i % 5 AS k FROM range(20) r(i)")
    with pytest.raises(sqlnb.errors.InvalidDataError, match="min_categories=200000"):
        sqlnb.NaiveBayes("m", con=con, family="categorical",
                         min_categories=200000).fit("t", "y")


def test_max_categories_sets_the_limit(con):
    from sklearn.naive_bayes import CategoricalNB

    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CASE WHEN i = 0 THEN 20 ELSE i % 3 END "
                "AS k FROM range(30) r(i)")
    with pytest.raises(sqlnb.errors.InvalidDataError, match="category code 20"):
        sqlnb.NaiveBayes("m", con=con, family="categorical", max_categories=20).fit("t", "y")
    model = sqlnb.NaiveBayes("m", con=con, family="categorical",
                             max_categories=21).fit("t", "y")
    k, y = map(np.array, zip(*con.execute("SELECT k, y FROM t").fetchall()))
    theirs = CategoricalNB().fit(k.reshape(-1, 1), y)
    rows = model.predict_proba("t").fetchall()
    np.testing.assert_allclose([row[2:] for row in rows],
                               theirs.predict_proba(k.reshape(-1, 1)), rtol=0, atol=1e-9)
    with pytest.raises(sqlnb.errors.InvalidParameterError, match="max_categories"):
        sqlnb.NaiveBayes("m", con=con, family="categorical", max_categories=0)


def test_value_columns_take_integer_values_as_categories_as_they_are(con):
    from sklearn.naive_bayes import CategoricalNB

    stray_code_table(con)
    model = sqlnb.NaiveBayes("m", con=con, family="categorical",
                             value_columns=["k"]).fit("t", "y")
    k, y = map(np.array, zip(*con.execute("SELECT k, y FROM t").fetchall()))
    # the oracle: scikit-learn on the values recoded 0..n-1 (only the values seen)
    seen = np.unique(k)
    codes = np.searchsorted(seen, k).reshape(-1, 1)
    theirs = CategoricalNB().fit(codes, y)
    rows = model.predict_proba("t").fetchall()
    np.testing.assert_allclose([row[2:] for row in rows], theirs.predict_proba(codes),
                               rtol=0, atol=1e-9)
    assert sqlnb.load(con, "m").family.params["value_columns"] == ["k"]


def test_value_columns_must_name_features(con):
    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i % 5 AS k FROM range(20) r(i)")
    with pytest.raises(sqlnb.errors.UnknownColumnError, match="zip"):
        sqlnb.NaiveBayes("m", con=con, family="categorical",
                         value_columns=["zip"]).fit("t", "y")
    with pytest.raises(sqlnb.errors.InvalidParameterError, match="value_columns"):
        sqlnb.NaiveBayes("m", con=con, family="categorical", value_columns="k")


def test_sparse_scoring_in_a_loop_leaves_no_registration_behind():
    import gc

    import scipy.sparse as sp

    import sqlnb.sklearn
    X = sp.csr_matrix(np.array([[3, 0, 1], [0, 2, 0], [4, 0, 0], [0, 1, 5]], dtype=float))
    y = np.array([0, 1, 0, 1])
    ours = sqlnb.sklearn.MultinomialNB().fit(X, y)
    theirs = MultinomialNB().fit(X, y)
    for i in range(5):
        batch = sp.csr_matrix(np.array([[i, 1, 0], [0, i, 2]], dtype=float))
        np.testing.assert_allclose(ours.predict_proba(batch), theirs.predict_proba(batch),
                                   rtol=0, atol=1e-12)
        gc.collect()
        assert registered_views(ours._connection()) == 0  # the estimator's own database


@pytest.mark.parametrize("ngram_range", [(1, 11), (11, 11), (2, 200)])
def test_an_ngram_range_past_ten_is_refused_before_anything_is_written(con, ngram_range):
    # each n is a branch of the statement listing a document's terms: (1, 5000) used to
    # exhaust memory, (1, 200) took 15 s on a hundred short documents
    con.execute("CREATE TABLE mail AS SELECT * FROM (VALUES ('spam', 'cheap pills now'), "
                "('ham', 'lunch at noon')) v(label, body)")
    with pytest.raises(sqlnb.errors.InvalidParameterError, match="max_n <= 10"):
        sqlnb.NaiveBayes("m", con=con, family="multinomial").fit(
            "mail", "label", text="body", ngram_range=ngram_range)
    assert con.execute("SELECT table_name FROM duckdb_tables()").fetchall() == [("mail",)]


def test_an_ngram_range_up_to_ten_fits_as_scikit_learn_counts(con):
    from sklearn.feature_extraction.text import CountVectorizer

    documents = ["a b c d e f g h i j k", "b c d e f g h i j k l", "x y z"]
    con.execute("CREATE TABLE docs AS SELECT unnest(?) AS body, unnest(?) AS label",
                [documents, ["p", "p", "q"]])
    sqlnb.NaiveBayes("m", con=con, family="multinomial").fit(
        "docs", "label", text="body", ngram_range=(1, 10), token_pattern=r"(?u)\b\w+\b")
    theirs = CountVectorizer(ngram_range=(1, 10), token_pattern=r"(?u)\b\w+\b").fit(documents)
    terms = [row[0] for row in con.execute("SELECT term FROM m_vocabulary ORDER BY term_index")
             .fetchall()]
    assert terms == list(theirs.get_feature_names_out())
