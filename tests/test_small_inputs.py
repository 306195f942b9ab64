"""Small in-memory inputs: what ``predict`` skips asking DuckDB, and that it still refuses
what it must."""

from __future__ import annotations

import gc
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pytest

import sqlnb
from sqlnb.engines.source import resolve
from sqlnb.errors import InvalidDataError


def described(con: duckdb.DuckDBPyConnection, table: pa.Table) -> dict[str, str]:
    con.register("described", table)
    try:
        return {row[0]: row[1] for row in con.execute("DESCRIBE SELECT * FROM described").fetchall()}
    finally:
        con.unregister("described")


def test_an_arrow_tables_columns_are_what_duckdb_describes():
    con = duckdb.connect()
    table = pa.table({
        "f64": pa.array([1.5]), "f32": pa.array([1.5], pa.float32()),
        "i64": pa.array([1], pa.int64()), "i32": pa.array([1], pa.int32()),
        "i16": pa.array([1], pa.int16()), "i8": pa.array([1], pa.int8()),
        "flag": pa.array([True]), "text": pa.array(["a"]),
        "long_text": pa.array(["a"], pa.large_string()),
    })

    assert resolve(con, table).columns == described(con, table)


def test_arrow_names_duckdb_would_rename_are_described_by_duckdb():
    con = duckdb.connect()
    table = pa.table([pa.array([1.0]), pa.array([2.0])], names=["A", "a"])

    assert resolve(con, table).columns == {"A": "DOUBLE", "a_1": "DOUBLE"}


def test_a_text_column_is_refused_after_numeric_inputs_were_scored():
    con = duckdb.connect()
    training = pa.table({"x": [1.0, 2.0, 10.0, 11.0], "y": [0, 0, 1, 1]})
    model = sqlnb.NaiveBayes("m", con=con, sql_macros=False).fit(training, "y")
    assert model.predict(pa.table({"x": [1.5]})).fetchall() == [(1.5, 0)]

    with pytest.raises(InvalidDataError, match="needs numbers"):
        model.predict(pa.table({"x": ["1.5"]}))


# ------------------------------------------------------------- statements planned once
def iris_model(con: duckdb.DuckDBPyConnection, **options) -> tuple[sqlnb.NaiveBayes, Any]:
    from sklearn.datasets import load_iris
    from sklearn.naive_bayes import GaussianNB

    X, y = load_iris(return_X_y=True)
    columns = {f"x{i}": X[:, i] for i in range(4)}
    model = sqlnb.NaiveBayes("iris", con=con, **options).fit(pa.table({**columns, "y": y}), "y")
    return model, GaussianNB().fit(X, y)


def prepared(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [row[0] for row in con.execute(
        "SELECT name FROM duckdb_prepared_statements() ORDER BY name").fetchall()]


def test_each_arrow_table_is_scored_with_its_own_rows():
    con = duckdb.connect()
    model, reference = iris_model(con)
    rows = np.array([[5.0, 3.4, 1.5, 0.2], [6.0, 2.7, 4.5, 1.5], [7.0, 3.0, 6.0, 2.2]])

    # one statement is planned for the first table and run again on the next ones
    for batch in (rows[:1], rows[1:], rows[::-1]):
        table = pa.table({f"x{i}": batch[:, i] for i in range(4)})
        got = model.predict_proba(table).fetchall()
        assert [row[:4] for row in got] == [tuple(row) for row in batch]
        np.testing.assert_allclose([row[4:] for row in got],
                                   reference.predict_proba(batch), rtol=1e-9, atol=1e-12)
    assert len(prepared(con)) == 1


def test_a_refit_by_another_object_is_not_scored_with_the_old_statement():
    con = duckdb.connect()
    model, _ = iris_model(con)
    row = pa.table({"x0": [5.0], "x1": [3.4], "x2": [1.5], "x3": [0.2]})
    assert model.predict(row).fetchall()[0][-1] == 0

    # the same model name, refitted elsewhere with class 0 renamed
    other = pa.table({"x0": [5.0, 5.1, 7.0, 6.9], "x1": [3.4, 3.5, 3.0, 3.1],
                      "x2": [1.5, 1.4, 6.0, 5.9], "x3": [0.2, 0.3, 2.2, 2.1],
                      "y": [9, 9, 1, 1]})
    sqlnb.NaiveBayes("iris", con=con.cursor()).fit(other, "y")

    assert model.predict(row).fetchall()[0][-1] == 9


def test_planned_statements_are_freed_with_the_parameters_they_hold():
    con = duckdb.connect()
    model, _ = iris_model(con)
    row = pa.table({"x0": [5.0], "x1": [3.4], "x2": [1.5], "x3": [0.2]})
    model.predict(row).fetchall()
    model.predict_proba(row).fetchall()
    assert len(prepared(con)) == 2

    model.invalidate()  # what every write of this object and a newer version do
    assert prepared(con) == []
    model.predict(row).fetchall()
    del model
    gc.collect()
    assert prepared(con) == []
    assert con.execute("SELECT view_name FROM duckdb_views() "
                       "WHERE starts_with(view_name, '__sqlnb')").fetchall() == []


def test_a_planned_statement_runs_inside_the_callers_transaction_and_leaves_it_open():
    con = duckdb.connect()
    model, _ = iris_model(con)
    row = pa.table({"x0": [5.0], "x1": [3.4], "x2": [1.5], "x3": [0.2]})
    con.begin()
    con.execute("CREATE TABLE mine AS SELECT 1 AS x")

    assert model.predict(row).fetchall()[0][-1] == 0
    con.rollback()  # still the caller's: nothing committed it
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'mine'"
                       ).fetchall() == [(0,)]


@pytest.mark.parametrize("keep_order", [True, False])
def test_the_inputs_columns_stay_with_their_rows_beyond_one_vector(keep_order):
    # the planned statement returns the prediction alone and the input's columns are put
    # next to it; DuckDB told not to keep the order, they pass through the statement
    con = duckdb.connect()
    con.execute(f"SET preserve_insertion_order = {str(keep_order).lower()}")
    model, reference = iris_model(con)
    rng = np.random.default_rng(0)
    batch = rng.uniform([4, 2, 1, 0], [8, 4.5, 7, 2.5], size=(9000, 4))
    table = pa.table({"id": np.arange(len(batch)),
                      **{f"x{i}": batch[:, i] for i in range(4)}})

    got = model.predict(table).to_arrow_table()

    assert got.column_names == ["id", "x0", "x1", "x2", "x3", "prediction"]
    ids = got.column("id").to_numpy()
    np.testing.assert_array_equal(got.column("x0").to_numpy(), batch[ids, 0])
    np.testing.assert_array_equal(got.column("prediction").to_numpy(),
                                  reference.predict(batch[ids]))
    assert sorted(ids) == list(range(len(batch)))


@pytest.mark.parametrize("with_null", [False, True])
def test_a_nan_is_missing_whether_or_not_the_input_holds_a_null(with_null):
    # an Arrow input without NULLs is scored by a statement that reads its columns as they
    # are (no coalesce); a NaN must still leave its feature out, as a NULL does
    con = duckdb.connect()
    model, reference = iris_model(con, sql_macros=False)
    rows = np.array([[5.0, np.nan, 1.5, 0.2], [6.0, 2.7, 4.5, 1.5], [7.0, 3.0, 6.0, 2.2]])
    present = ~np.isnan(rows)
    if with_null:
        present[2, 0] = False
    table = pa.table({f"x{i}": pa.array(rows[:, i], mask=~present[:, i] & ~np.isnan(rows[:, i]))
                      for i in range(4)})
    assert (table.column("x0").null_count > 0) == with_null
    # scikit-learn's per-feature terms, summed over the features that are there
    terms = -0.5 * (np.log(2 * np.pi * reference.var_)[None, :, :]
                    + (rows[:, None, :] - reference.theta_[None]) ** 2 / reference.var_[None])
    expected = np.log(reference.class_prior_) + np.where(present[:, None, :], terms, 0).sum(2)

    got = model.predict_joint_log_proba(table).fetchall()

    assert len(prepared(con)) == 1  # scored by a planned statement
    np.testing.assert_allclose([row[4:] for row in got], expected, rtol=1e-12)
    # the rows without a missing value are scikit-learn's own
    np.testing.assert_allclose([row[4:] for row in got][1], reference.predict_joint_log_proba(
        rows[1:2])[0], rtol=1e-12)


def test_inputs_with_and_without_a_missing_value_each_get_their_statement():
    # an input with no NULL and no NaN is scored by a statement without the careful form;
    # a NaN in the next input (same schema) must not reach that statement
    con = duckdb.connect()
    model, reference = iris_model(con, sql_macros=False)
    complete = np.array([[5.0, 3.4, 1.5, 0.2], [6.0, 2.7, 4.5, 1.5]])
    holed = complete.copy()
    holed[0, 1] = np.nan
    as_table = lambda rows: pa.table({f"x{i}": rows[:, i] for i in range(4)})

    first = model.predict_joint_log_proba(as_table(complete)).fetchall()
    second = model.predict_joint_log_proba(as_table(holed)).fetchall()

    assert len(prepared(con)) == 2
    np.testing.assert_allclose([row[4:] for row in first],
                               reference.predict_joint_log_proba(complete), rtol=1e-12)
    # the NaN leaves its feature out; the complete row is scikit-learn's own
    assert all(np.isfinite(second[0][4:]))
    np.testing.assert_allclose(second[1][4:], reference.predict_joint_log_proba(complete)[1],
                               rtol=1e-12)


@pytest.mark.parametrize("names", [None, ["setosa", "versicolor", "virginica"]])
def test_a_planned_statement_gives_the_same_table_at_every_call(names):
    # after its first run, a statement whose result holds only numbers is fetched as NumPy
    # columns and made an Arrow table of the first result's schema (one pass fewer)
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    labels = y if names is None else np.array(names)[y]
    con = duckdb.connect()
    training = pa.table({**{f"x{i}": X[:, i] for i in range(4)}, "y": labels})
    model = sqlnb.NaiveBayes("iris", con=con, sql_macros=False).fit(training, "y")
    rows = pa.table({f"x{i}": X[::7, i] for i in range(4)})

    for method in (model.predict, model.predict_proba, model.predict_joint_log_proba):
        first = method(rows).to_arrow_table()
        again = method(rows).to_arrow_table()
        assert again.schema == first.schema
        assert again.equals(first)


def test_a_model_dropped_elsewhere_is_not_fitted_and_the_callers_transaction_stays_open():
    # the version read is bound before it runs: a model whose metadata is gone fails there,
    # and a failed bind leaves the caller's transaction usable
    con = duckdb.connect()
    model, _ = iris_model(con)
    row = pa.table({"x0": [5.0], "x1": [3.4], "x2": [1.5], "x3": [0.2]})
    model.predict(row).fetchall()  # parameters and a planned statement cached
    sqlnb.NaiveBayes("iris", con=con.cursor()).drop()
    con.begin()
    con.execute("CREATE TABLE mine AS SELECT 1 AS x")

    with pytest.raises(sqlnb.errors.NotFittedError):
        model.predict(row)

    assert con.execute("SELECT x FROM mine").fetchall() == [(1,)]  # still usable
    con.rollback()


MATRIX_ORACLES = {"gaussian": "GaussianNB", "multinomial": "MultinomialNB",
                  "complement": "ComplementNB", "bernoulli": "BernoulliNB"}


@pytest.mark.parametrize("family", [*MATRIX_ORACLES, "poisson"])
@pytest.mark.parametrize("rows", [1, 5])
def test_a_few_rows_scored_by_the_weight_matrix_answer_as_the_oracle(family, rows):
    """A few rows without a missing value are scored by one inner product per class over
    the weight matrix (integer and float columns alike): scikit-learn's answers (the
    Poisson, without a scikit-learn twin, the answers of the statement for a table)."""
    from sklearn import naive_bayes

    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 120)
    if family == "gaussian":
        X = rng.normal(y[:, None] * 1.5, 1.0 + 0.3 * np.arange(4), (120, 4))
    else:
        X = rng.poisson(1.0 + (y[:, None] + np.arange(4)) % 3, (120, 4)).astype(float)
    X[:, [1, 3]] = np.round(X[:, [1, 3]])  # read from integer columns
    train = pa.table({"a": X[:, 0], "b": X[:, 1].astype(np.int64), "c": X[:, 2],
                      "d": X[:, 3].astype(np.int32), "y": y})
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family=family).fit(train, "y")
    assert sqlnb.scoring.weight_matrix(model.context, careful=False) is not None
    batch = train.drop_columns(["y"]).slice(7, rows)
    got = {output: np.array([r[-3:] for r in getattr(model, method)(batch).fetchall()])
           for output, method in [("proba", "predict_proba"), ("log", "predict_log_proba"),
                                  ("joint", "predict_joint_log_proba")]}
    labels = [r[-1] for r in model.predict(batch).fetchall()]
    if family == "poisson":
        con.register("batch_table", batch)
        expected = np.array([r[-3:] for r in model.predict_proba(
            con.table("batch_table")).fetchall()])
        np.testing.assert_allclose(got["proba"], expected, rtol=0, atol=1e-12)
        assert labels == np.argmax(expected, axis=1).tolist()
        return
    oracle = getattr(naive_bayes, MATRIX_ORACLES[family])().fit(X, y)
    np.testing.assert_allclose(got["proba"], oracle.predict_proba(X[7:7 + rows]), rtol=0, atol=1e-9)
    np.testing.assert_allclose(got["log"], oracle.predict_log_proba(X[7:7 + rows]), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got["joint"], oracle.predict_joint_log_proba(X[7:7 + rows]),
                               rtol=1e-9, atol=1e-9)
    assert labels == oracle.predict(X[7:7 + rows]).tolist()


def test_the_weight_matrix_is_one_inner_product_and_a_missing_value_takes_the_other_form():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 4, 80)
    X = rng.normal(y[:, None], 1.0, (80, 3))
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con).fit(
        pa.table({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2], "y": y}), "y")
    statement = sqlnb.scoring.array_score_sql(
        model.context, "t", "predict", [], None, literal=True, nulls=False, missing=False,
        per_column=False)[0]
    assert statement.count("list_inner_product") == 1
    # a row with a NaN is left out of that feature, as by the statement for a table
    holes = pa.table({"a": [X[0, 0], np.nan], "b": [np.nan, X[1, 1]], "c": [X[0, 2], X[1, 2]]})
    con.register("holes", holes)
    expected = [r[-4:] for r in model.predict_proba(con.table("holes")).fetchall()]
    got = [r[-4:] for r in model.predict_proba(holes).fetchall()]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    oracle = __import__("sklearn.naive_bayes").naive_bayes.GaussianNB().fit(X[:, [1, 2]], y)
    np.testing.assert_allclose(np.array(got)[1], oracle.predict_proba(X[1:2, [1, 2]])[0],
                               rtol=0, atol=1e-9)
