"""Scoring macros of the families the arrays cover, and the parameter view
(`<name>_scoring_params`) beside them.

scikit-learn is the oracle: every family's macros predict its labels and its
probabilities within 1e-9. The macros write the parameters in their text as one weight
matrix (a row per class, one inner product each), so every write re-creates them in its
transaction: a refit or partial fit by any connection shows through them at its commit,
and a write without macros drops them rather than leave them stale.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from sklearn.naive_bayes import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB

import sqlnb
from sqlnb import compiler

ORACLES = {"gaussian": GaussianNB, "multinomial": MultinomialNB, "complement": ComplementNB,
           "bernoulli": BernoulliNB, "categorical": CategoricalNB}


def data(family: str, n: int = 150, width: int = 6, classes: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    if family == "gaussian":
        X = rng.normal(y[:, None] * 0.8, 1.0 + 0.2 * np.arange(width), (n, width))
    elif family == "bernoulli":
        X = (rng.random((n, width)) < 0.2 + 0.15 * ((y[:, None] + np.arange(width)) % 4))
        X = X.astype(float)
    elif family == "categorical":
        X = ((rng.integers(0, 3, (n, width)) + y[:, None]) % 4).astype(float)
    else:
        X = rng.poisson(1.0 + (y[:, None] + np.arange(width)) % 3, (n, width)).astype(float)
    return X, y


def load(con: duckdb.DuckDBPyConnection, table: str, X: np.ndarray, y: np.ndarray) -> None:
    frame = pd.DataFrame({**{f"x{i}": X[:, i] for i in range(X.shape[1])}, "y": y})  # noqa: F841
    con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM frame")


def macro_scores(con, name: str, table: str, classes: list[int]):
    rows = con.execute(
        f"SELECT {name}_predict(t), {name}_predict_proba(t) FROM {table} AS t").fetchall()
    return [r[0] for r in rows], np.array([[r[1][str(k)] for k in classes] for r in rows])


@pytest.mark.parametrize("family", list(ORACLES))
def test_every_familys_macros_agree_with_scikit_learn(family):
    X, y = data(family)
    con = duckdb.connect()
    load(con, "train", X, y)
    sqlnb.NaiveBayes("m", con=con, family=family).fit("train", "y")
    oracle = ORACLES[family]().fit(X, y)
    labels, proba = macro_scores(con, "m", "train", list(oracle.classes_))
    assert labels == oracle.predict(X).tolist()
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-9)


@pytest.mark.parametrize("family", ["gaussian", "multinomial", "complement", "bernoulli",
                                    "poisson"])
def test_array_families_read_their_parameters_from_a_view(family):
    X, y = data(family)
    con = duckdb.connect()
    load(con, "train", X, y)
    model = sqlnb.NaiveBayes("m", con=con, family=family).fit("train", "y")
    assert con.execute("SELECT count(*) FROM duckdb_views() "
                       "WHERE view_name = 'm_scoring_params'").fetchone()[0] == 1
    assert con.execute("SELECT count(*) FROM m_scoring_params").fetchone()[0] == 4
    # the macros agree with predict_proba (Poisson has no scikit-learn twin)
    expected = np.array([r[-4:] for r in model.predict_proba("train").fetchall()])
    _, proba = macro_scores(con, "m", "train", [0, 1, 2, 3])
    np.testing.assert_allclose(proba, expected, rtol=0, atol=1e-12)


def joint_text(con, name: str = "m") -> str:
    return con.execute("SELECT macro_definition FROM duckdb_functions() "
                       "WHERE function_name = ?", [f"{name}_joint_log_likelihood"]).fetchone()[0]


def test_the_macro_scores_with_one_inner_product_over_a_weight_matrix():
    con = duckdb.connect()
    for classes in (2, 8):
        X, y = data("gaussian", n=200, classes=classes)
        load(con, "train", X, y)
        model = sqlnb.NaiveBayes("m", con=con).fit("train", "y")
        text = joint_text(con)
        # one inner product for every class and feature, no term per class x feature
        assert text.count("list_inner_product") == 1
        assert "m_scoring_params" not in text
        expected = np.array([r[-classes:] for r in model.predict_joint_log_proba("train").fetchall()])
        got = np.array(con.execute(
            "SELECT m_joint_log_likelihood(t) FROM train AS t").fetchall())[:, 0]
        np.testing.assert_allclose(np.stack(got), expected, rtol=1e-12, atol=1e-9)


def test_a_partial_fit_by_another_connection_shows_in_the_macros():
    X, y = data("multinomial", n=200)
    con = duckdb.connect()
    load(con, "train", X[:100], y[:100])
    load(con, "more", X[100:], y[100:])
    sqlnb.NaiveBayes("m", con=con, family="multinomial").fit("train", "y")
    other = con.cursor()
    sqlnb.load(other, "m").partial_fit("more", "y")
    oracle = MultinomialNB().fit(X, y)
    labels, proba = macro_scores(con, "m", "train", [0, 1, 2, 3])
    assert labels == oracle.predict(X[:100]).tolist()
    np.testing.assert_allclose(proba, oracle.predict_proba(X[:100]), rtol=0, atol=1e-9)


def test_a_missing_value_is_left_out_by_the_macros_as_by_predict():
    X, y = data("gaussian")
    con = duckdb.connect()
    load(con, "train", X, y)
    model = sqlnb.NaiveBayes("m", con=con, missing="ignore").fit("train", "y")
    con.execute("CREATE TABLE holes AS SELECT * REPLACE (CASE WHEN x1 > 0 THEN x1 END AS x1, "
                "CASE WHEN x2 > 1 THEN 'nan'::DOUBLE ELSE x2 END AS x2) FROM train")
    expected = np.array([r[-4:] for r in model.predict_proba("holes").fetchall()])
    _, proba = macro_scores(con, "m", "holes", [0, 1, 2, 3])
    np.testing.assert_allclose(proba, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("forced", [False, True])
def test_the_macros_read_the_rows_features_by_name_and_refuse_a_row_lacking_one(forced):
    """The row's features are found by name (any order, other columns beside them, a
    column of another numeric type); a row lacking one is refused, not scored as if its
    value were missing. ``forced``: the Gaussian whose expansion would lose digits, scored
    from the parameter view rather than the weight matrix."""
    X, y = data("gaussian")
    if forced:
        # no spread in classes 0 and 1, far apart: the expanded form would cancel
        X[:, 0] = np.where(y == 0, 0.0, np.where(y == 1, 1000.0, X[:, 0]))
    con = duckdb.connect()
    load(con, "train", X, y)
    model = sqlnb.NaiveBayes("m", con=con).fit("train", "y")
    assert (sqlnb.scoring.weight_matrix(model.context, careful=True) is None) == forced
    con.execute("CREATE TABLE shuffled AS SELECT 'note' AS memo, x5, x4, x3, "
                "CAST(x2 * 4 AS INTEGER) AS x2, x1, x0, y FROM train")
    expected = np.array([r[-4:] for r in model.predict_proba("shuffled").fetchall()])
    _, proba = macro_scores(con, "m", "shuffled", [0, 1, 2, 3])
    np.testing.assert_allclose(proba, expected, rtol=0, atol=1e-12)

    with pytest.raises(duckdb.Error, match="lacks a feature column.*m_features"):
        con.execute("SELECT m_predict(t) FROM (SELECT * EXCLUDE (x3) FROM train) AS t").fetchall()


@pytest.mark.parametrize("family", ["gaussian", "multinomial", "bernoulli", "poisson"])
def test_the_score_table_macro_reads_the_columns_missing_values_included(family):
    """<name>_score(relation) scores the relation's columns with the weight matrix (no row
    passed to a macro): the rows come back with predict's labels, a NULL or NaN left out."""
    X, y = data(family)
    con = duckdb.connect()
    load(con, "train", X, y)
    model = sqlnb.NaiveBayes("m", con=con, family=family).fit("train", "y")
    con.execute("CREATE TABLE holes AS SELECT * EXCLUDE (y) REPLACE ("
                "CASE WHEN x1 > 0.5 THEN x1 END AS x1, "
                "CASE WHEN x2 >= (SELECT max(x2) FROM train) THEN 'nan'::DOUBLE ELSE x2 END "
                "AS x2) FROM train")
    expected = model.predict("holes").fetchall()
    got = con.execute("SELECT * FROM m_score('holes')").fetchall()
    assert [r[-1] for r in got] == [r[-1] for r in expected]  # (NaN != NaN in the rows)
    assert [r[0] for r in got] == [r[0] for r in expected] and len(got[0]) == len(expected[0])
    assert any(r[1] is None for r in got) and any(r[2] != r[2] for r in got)
    scalar = [r[0] for r in con.execute("SELECT m_predict(t) FROM holes AS t").fetchall()]
    assert scalar == [r[-1] for r in expected]
    complete = [r[-1] for r in con.execute("SELECT * FROM m_score('train')").fetchall()]
    if family in ORACLES:  # (Poisson: predict's own closed-form tests)
        assert complete == ORACLES[family]().fit(X, y).predict(X).tolist()
    else:
        assert complete == [r[-1] for r in model.predict("train").fetchall()]


def test_dropping_the_model_drops_its_parameter_view():
    X, y = data("gaussian")
    con = duckdb.connect()
    load(con, "train", X, y)
    model = sqlnb.NaiveBayes("m", con=con).fit("train", "y")
    model.drop()
    assert con.execute("SELECT count(*) FROM duckdb_views() "
                       "WHERE view_name = 'm_scoring_params'").fetchone()[0] == 0


@pytest.mark.parametrize("family", ["gaussian", "multinomial", "bernoulli"])
@pytest.mark.parametrize("sql_macros", [True, False])
def test_predict_binds_the_lists_with_or_without_macros(family, sql_macros):
    """The arrays strategy binds the lists (cached per model version) rather than reading
    the macros' view, which derives them at each read: both give scikit-learn's answers."""
    X, y = data(family)
    con = duckdb.connect()
    load(con, "train", X, y)
    model = sqlnb.NaiveBayes("m", con=con, family=family, scoring="arrays",
                             sql_macros=sql_macros).fit("train", "y")
    sql, _ = compiler.statement(model, "train", "proba")
    assert "m_scoring_params" not in sql
    oracle = ORACLES[family]().fit(X, y)
    assert [r[-1] for r in model.predict("train").fetchall()] == oracle.predict(X).tolist()
    proba = np.array([r[-4:] for r in model.predict_proba("train").fetchall()])
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-9)


def test_a_table_left_by_an_earlier_fit_is_not_read_after_a_fit_without_macros():
    X, y = data("gaussian", n=200)
    con = duckdb.connect()
    load(con, "first", X[:100], y[:100])
    load(con, "second", X[100:] + 3.0, y[100:])
    sqlnb.NaiveBayes("m", con=con, scoring="arrays").fit("first", "y")
    sqlnb.NaiveBayes("m", con=con, scoring="arrays", sql_macros=False).fit("second", "y")
    model = sqlnb.load(con, "m")
    model.scoring = "arrays"
    sql, _ = compiler.statement(model, "second")
    assert "m_scoring_params" not in sql
    oracle = GaussianNB().fit(X[100:] + 3.0, y[100:])
    proba = np.array([r[-4:] for r in model.predict_proba("second").fetchall()])
    np.testing.assert_allclose(proba, oracle.predict_proba(X[100:] + 3.0), rtol=0, atol=1e-9)


def older_parameter_table(con, name: str) -> None:
    """What a model written before the view has: the same rows, stored as a table."""
    con.execute(f"CREATE TABLE {name}_copy AS SELECT * FROM {name}_scoring_params")
    con.execute(f"DROP VIEW {name}_scoring_params")
    con.execute(f"ALTER TABLE {name}_copy RENAME TO {name}_scoring_params")


def test_an_update_replaces_an_older_parameter_table_by_the_view():
    X, y = data("gaussian", n=200)
    con = duckdb.connect()
    load(con, "first", X[:100], y[:100])
    load(con, "second", X[100:], y[100:])
    load(con, "every", X, y)
    sqlnb.NaiveBayes("m", con=con).fit("first", "y")
    older_parameter_table(con, "m")
    sqlnb.load(con, "m").partial_fit("second", "y")
    assert con.execute("SELECT count(*) FROM duckdb_views() "
                       "WHERE view_name = 'm_scoring_params'").fetchone()[0] == 1
    oracle = GaussianNB().fit(X, y)
    labels, proba = macro_scores(con, "m", "every", [0, 1, 2, 3])
    assert labels == oracle.predict(X).tolist()
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-9)


def macro_texts(con, name: str) -> list[str]:
    return [r[0] for r in con.execute(
        "SELECT macro_definition FROM duckdb_functions() WHERE starts_with(function_name, ?) "
        "ORDER BY function_name", [f"{name}_"]).fetchall()]


@pytest.mark.parametrize("family", ["gaussian", "multinomial"])
def test_an_update_without_new_classes_rewrites_the_macros_with_its_parameters(family):
    X, y = data(family, n=200)
    con = duckdb.connect()
    load(con, "first", X[:100], y[:100])
    load(con, "second", X[100:], y[100:])
    load(con, "every", X, y)
    model = sqlnb.NaiveBayes("m", con=con, family=family).partial_fit("first", "y")
    texts = macro_texts(con, "m")
    assert len(texts) == 6  # joint, predict, the two probabilities, score, explain
    rendered, run = [], model.pipeline.run
    model.pipeline.run = lambda template, **context: (rendered.append(template),
                                                      run(template, **context))[1]
    model.partial_fit("second", "y")
    # the parameter views stay as they are
    assert not {"score/params.sql", "score/scoring_params.sql"} & set(rendered)
    assert macro_texts(con, "m") != texts  # the macros hold the new parameters ...
    oracle = ORACLES[family]().fit(X, y)  # ... and answer with them
    labels, proba = macro_scores(con, "m", "every", list(oracle.classes_))
    assert labels == oracle.predict(X).tolist()
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-9)


def test_a_plain_sql_client_sees_a_partial_fit_through_the_macros(tmp_path):
    """A second connection that only runs SQL (no sqlnb) scores with the parameters of
    the last committed update (which re-created the macros in its transaction)."""
    X, y = data("gaussian", n=200)
    con = duckdb.connect(str(tmp_path / "models.duckdb"))
    load(con, "first", X[:100], y[:100])
    load(con, "second", X[100:], y[100:])
    load(con, "every", X, y)
    model = sqlnb.NaiveBayes("m", con=con).partial_fit("first", "y")
    client = con.cursor()
    before, _ = macro_scores(client, "m", "every", [0, 1, 2, 3])
    assert before == GaussianNB().fit(X[:100], y[:100]).predict(X).tolist()
    model.partial_fit("second", "y")
    oracle = GaussianNB().fit(X, y)
    labels, proba = macro_scores(client, "m", "every", [0, 1, 2, 3])
    assert labels == oracle.predict(X).tolist()
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-9)


def test_macros_skipped_by_an_update_are_recreated_by_the_next_one():
    # an update without macros that adds a class takes the view away from the old
    # macros (they name the old classes); the next update with macros creates them again
    X, y = data("gaussian", n=240)
    learned = np.r_[np.flatnonzero(y[:80] != 3), np.arange(80, 240)]  # no class 3 at first
    X, y = X[learned], y[learned]
    first = len(learned) - 160
    con = duckdb.connect()
    load(con, "first", X[:first], y[:first])
    load(con, "second", X[first:first + 80], y[first:first + 80])
    load(con, "third", X[first + 80:], y[first + 80:])
    load(con, "every", X, y)
    sqlnb.NaiveBayes("m", con=con).partial_fit("first", "y")
    sqlnb.NaiveBayes("m", con=con, sql_macros=False).partial_fit("second", "y")  # adds class 3
    sqlnb.NaiveBayes("m", con=con).partial_fit("third", "y")
    oracle = GaussianNB().fit(X, y)
    labels, proba = macro_scores(con, "m", "every", [0, 1, 2, 3])
    assert labels == oracle.predict(X).tolist()
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-9)


def test_gaussian_macros_follow_priors_smoothing_and_weights_as_scikit_learn():
    X, y = data("gaussian", n=200)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    con = duckdb.connect()
    frame = pd.DataFrame({**{f"x{i}": X[:, i] for i in range(X.shape[1])}, "y": y, "w": w})
    con.register("train", frame)
    priors = [0.1, 0.2, 0.3, 0.4]
    sqlnb.NaiveBayes("m", con=con, priors=priors, var_smoothing=0.05).fit(
        "train", "y", weight="w")
    oracle = GaussianNB(priors=priors, var_smoothing=0.05).fit(X, y, sample_weight=w)
    con.execute("CREATE TABLE every AS SELECT * EXCLUDE (w) FROM train")
    labels, proba = macro_scores(con, "m", "every", [0, 1, 2, 3])
    assert labels == oracle.predict(X).tolist()
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-9)


@pytest.mark.parametrize("new_class", [True, False])
def test_macros_left_by_a_write_without_macros_fail_rather_than_answer_stale(new_class):
    X, y = data("gaussian", n=200)
    con = duckdb.connect()
    first = y < 3 if new_class else np.arange(len(y)) < 100
    load(con, "first", X[first], y[first])
    load(con, "second", X[~first], y[~first])
    sqlnb.NaiveBayes("m", con=con).fit("first", "y")
    assert con.execute("SELECT count(*) FROM first AS t WHERE m_predict(t) IS NOT NULL"
                       ).fetchone()[0] == int(first.sum())
    sqlnb.NaiveBayes("m", con=con, sql_macros=False).partial_fit("second", "y")
    with pytest.raises(duckdb.CatalogException, match="m_predict"):
        con.execute("SELECT m_predict(t) FROM second AS t").fetchall()
    # the model itself answers with every row it learned
    model = sqlnb.load(con, "m")
    load(con, "every", X, y)
    assert [r[-1] for r in model.predict("every").fetchall()] == \
        GaussianNB().fit(np.r_[X[first], X[~first]], np.r_[y[first], y[~first]]).predict(X).tolist()


@pytest.mark.parametrize("write", ["merge", "forget"])
def test_a_merge_or_forget_by_another_connection_shows_in_the_macros(write, tmp_path):
    X, y = data("gaussian", n=240)
    con = duckdb.connect(str(tmp_path / "models.duckdb"))
    load(con, "first", X[:120], y[:120])
    load(con, "second", X[120:], y[120:])
    load(con, "every", X, y)
    client = con.cursor()  # plain SQL only
    if write == "merge":
        sqlnb.NaiveBayes("m", con=con).fit("first", "y")
        sqlnb.NaiveBayes("other", con=con).fit("second", "y")
        sqlnb.load(con.cursor(), "m").merge("other")
        oracle = GaussianNB().fit(X, y)
    else:
        sqlnb.NaiveBayes("m", con=con).fit("every", "y")
        sqlnb.load(con.cursor(), "m").forget("first", "y")
        oracle = GaussianNB().fit(X[120:], y[120:])
    labels, proba = macro_scores(client, "m", "every", [0, 1, 2, 3])
    assert labels == oracle.predict(X).tolist()
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-9)


@pytest.mark.parametrize("offset", [0.0, 1e4])
def test_a_gaussian_near_zero_is_scored_without_a_shift_and_one_far_from_it_with_one(offset):
    """Around 0 the expanded Gaussian keeps its digits (the row's columns are its list, no
    shift); 10,000 away it would cancel, and the row is centred on the model's shift
    first. Either way the macros, the statement for a table and the one for a few Arrow
    rows answer as scikit-learn, and a missing value (NULL or NaN) is left out alike."""
    X, y = data("gaussian", n=200)
    X = X + offset
    con = duckdb.connect()
    load(con, "train", X, y)
    model = sqlnb.NaiveBayes("m", con=con).fit("train", "y")
    arrays = sqlnb.scoring._parameters(model.context)
    assert arrays["expanded"]
    assert (arrays["shift"] is None) == (offset == 0.0)
    oracle = GaussianNB().fit(X, y)

    labels, proba = macro_scores(con, "m", "train", [0, 1, 2, 3])
    assert labels == oracle.predict(X).tolist()
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-9)
    few = pa.table({f"x{i}": X[:5, i] for i in range(X.shape[1])})
    np.testing.assert_allclose(np.array([r[-4:] for r in model.predict_proba(few).fetchall()]),
                               oracle.predict_proba(X[:5]), rtol=0, atol=1e-9)
    np.testing.assert_allclose(
        np.array([r[-4:] for r in model.predict_proba("train").fetchall()]),
        oracle.predict_proba(X), rtol=0, atol=1e-9)

    con.execute("CREATE TABLE holes AS SELECT * REPLACE (CASE WHEN x1 > 0.5 + $o THEN x1 END "
                "AS x1, CASE WHEN x2 > 1 + $o THEN 'nan'::DOUBLE ELSE x2 END AS x2) FROM train",
                {"o": offset})
    expected = np.array([r[-4:] for r in model.predict_proba("holes").fetchall()])
    _, proba = macro_scores(con, "m", "holes", [0, 1, 2, 3])
    np.testing.assert_allclose(proba, expected, rtol=0, atol=1e-12)
    nulls, nans = con.execute("SELECT count(*) FILTER (x1 IS NULL), count(*) FILTER (isnan(x2)) "
                              "FROM holes").fetchone()
    assert 0 < nulls < len(y) and 0 < nans < len(y)
