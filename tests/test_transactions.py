"""A caller's open transaction is never committed or rolled back by
sqlnb, and a fit that raises has committed nothing."""

from __future__ import annotations

import duckdb
import pytest

import sqlnb
from sqlnb.errors import ModelNotFoundError, TransactionError


@pytest.fixture
def con():
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i % 2 * 10 + i % 3 AS DOUBLE) "
                       "AS v, 'word' || (i % 2) AS body FROM range(10) r(i)")
    connection.execute("CREATE TABLE pending (id INTEGER)")
    yield connection
    connection.close()


WRITES = {
    "fit": lambda con, m: m.fit("t", "y", features=["v"]),
    "fit text": lambda con, m: sqlnb.NaiveBayes("m", con=con, family="multinomial").fit(
        "t", "y", text="body"),
    "partial_fit": lambda con, m: m.partial_fit("t", "y", features=["v"]),
    "forget": lambda con, m: m.forget("t", "y", features=["v"]),
    "merge": lambda con, m: sqlnb.merge(con, ["m"], into="m2"),
    "drop": lambda con, m: m.drop(),
    "create_macros": lambda con, m: m.create_macros(),
    "fit_sql": lambda con, m: m.fit_sql("t", "y", features=["v"]),
}


@pytest.mark.parametrize("call", list(WRITES))
def test_a_write_inside_the_callers_transaction_is_refused_and_keeps_their_writes(con, call):
    model = sqlnb.NaiveBayes("m", con=con).fit("t", "y", features=["v"])
    con.begin()
    con.execute("INSERT INTO pending VALUES (1)")
    with pytest.raises(TransactionError, match="commit or roll back first"):
        WRITES[call](con, model)
    con.execute("INSERT INTO pending VALUES (2)")  # the caller's transaction is still usable
    con.commit()
    assert con.execute("SELECT id FROM pending ORDER BY id").fetchall() == [(1,), (2,)]
    assert sqlnb.load(con, "m").classes_ == [0, 1]  # the model is as it was


def test_predict_and_evaluate_work_inside_the_callers_transaction(con):
    model = sqlnb.NaiveBayes("m", con=con).fit("t", "y", features=["v"])
    con.begin()
    con.execute("INSERT INTO pending VALUES (1)")
    assert [row[-1] for row in model.predict("t").fetchall()] == [i % 2 for i in range(10)]
    assert model.evaluate("t", "y")["accuracy"] == 1.0
    con.rollback()  # the caller's own decision: their insert goes, as they asked
    assert con.execute("SELECT count(*) FROM pending").fetchall() == [(0,)]


def test_a_fit_that_raises_has_committed_nothing(con):
    # The target is computed by a function that fails on its last call: wherever the
    # last scan of the source happens, it must be before COMMIT.
    calls = {"n": 0, "fail_at": None}

    def label(i: int) -> int:
        calls["n"] += 1
        if calls["n"] == calls["fail_at"]:
            raise RuntimeError("the source failed")
        return i % 2

    con.create_function("label", label, [duckdb.sqltype("BIGINT")], duckdb.sqltype("BIGINT"),
                        side_effects=True)
    con.execute("CREATE VIEW flaky AS SELECT label(i) AS y, CAST(i AS DOUBLE) AS v "
                "FROM range(10) r(i)")
    sqlnb.NaiveBayes("probe", con=con).fit("flaky", "y")
    calls["n"], calls["fail_at"] = 0, calls["n"]
    with pytest.raises(duckdb.Error, match="the source failed"):
        sqlnb.NaiveBayes("m", con=con).fit("flaky", "y")
    with pytest.raises(ModelNotFoundError):
        sqlnb.load(con, "m")


def test_loading_an_unknown_model_inside_the_callers_transaction_keeps_it_usable(con):
    con.begin()
    con.execute("INSERT INTO pending VALUES (1)")
    with pytest.raises(ModelNotFoundError):
        sqlnb.load(con, "nothing")
    con.commit()
    assert con.execute("SELECT id FROM pending").fetchall() == [(1,)]
