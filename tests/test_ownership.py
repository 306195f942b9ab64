"""A model drops only the relations it owns, a name it needs that someone
else owns is a clear error, and model names follow DuckDB's case-insensitive identifiers."""

from __future__ import annotations

import duckdb
import pytest

import sqlnb
from sqlnb.errors import InvalidParameterError, ModelNotFoundError, NameConflictError


@pytest.fixture
def con():
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t AS SELECT i % 2 AS y, i % 3 AS g, "
                       "CAST(i % 2 * 10 + i % 5 AS DOUBLE) AS v FROM range(30) r(i)")
    yield connection
    connection.close()


def _relations(con: duckdb.DuckDBPyConnection) -> set[str]:
    tables = con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
    views = con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
    return {name for (name,) in tables + views}


PREDICTIONS = [i % 2 for i in range(30)]


@pytest.mark.parametrize("user_table", ["m_vocabulary", "m_analyzer", "m_group_columns",
                                        "m_gaussian_stats"])
def test_a_user_table_beside_the_models_names_survives_fit_predict_and_drop(con, user_table):
    con.execute(f"CREATE TABLE {user_table} AS SELECT 'mine' AS owner")
    model = sqlnb.NaiveBayes("m", con=con).fit("t", "y", features=["v"])
    assert [row[-1] for row in model.predict("t").fetchall()] == PREDICTIONS
    model.drop()
    assert con.execute(f"SELECT owner FROM {user_table}").fetchall() == [("mine",)]
    assert _relations(con) == {"t", user_table}


def test_the_model_m_group_keeps_its_statistics_when_m_is_fitted_and_dropped(con):
    other = sqlnb.NaiveBayes("m_group", con=con).fit("t", "y", features=["v"])
    stats = con.execute("SELECT * FROM m_group_class_stats ORDER BY class").fetchall()
    model = sqlnb.NaiveBayes("m", con=con).fit("t", "y", features=["v"])
    model.drop()
    assert con.execute("SELECT * FROM m_group_class_stats ORDER BY class").fetchall() == stats
    assert [row[-1] for row in other.predict("t").fetchall()] == PREDICTIONS


def test_a_grouped_fit_that_needs_another_models_names_is_refused(con):
    sqlnb.NaiveBayes("m_group", con=con).fit("t", "y", features=["v"])
    before = _relations(con)
    with pytest.raises(NameConflictError, match="m_group_class_stats"):
        sqlnb.NaiveBayes("m", con=con).fit("t", "y", features=["v"], group_by="g")
    assert _relations(con) == before  # and m_group is untouched


@pytest.mark.parametrize("statement", [
    "CREATE TABLE m_class_stats AS SELECT 'mine' AS owner",
    "CREATE VIEW M_Class_Params AS SELECT 'mine' AS owner",
    "CREATE MACRO m_predict(x) AS 'mine'",
])
def test_a_user_relation_on_a_name_the_model_needs_is_an_error_and_kept(con, statement):
    con.execute(statement)
    before = _relations(con)
    with pytest.raises(NameConflictError, match="drop or rename it"):
        sqlnb.NaiveBayes("m", con=con).fit("t", "y", features=["v"])
    assert _relations(con) == before
    with pytest.raises(ModelNotFoundError):
        sqlnb.load(con, "m")


def test_dropping_a_model_keeps_a_user_macro_named_like_its_macros(con):
    model = sqlnb.NaiveBayes("m", con=con, sql_macros=False).fit("t", "y", features=["v"])
    model.drop()
    con.execute("CREATE MACRO m_predict(x) AS 'mine'")
    sqlnb.NaiveBayes("mm", con=con).fit("t", "y", features=["v"]).drop()
    assert con.execute("SELECT m_predict(1)").fetchall() == [("mine",)]


def _as_written_by_schema_1(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Turn a model's meta row into what the previous release wrote (no ownership record)."""
    con.execute(f"ALTER TABLE {name}_meta DROP COLUMN relations")
    con.execute(f"UPDATE {name}_meta SET schema_version = 1")


def test_a_model_from_schema_1_loads_scores_refits_and_drops(con):
    sqlnb.NaiveBayes("old", con=con).fit("t", "y", features=["v"], group_by="g")
    _as_written_by_schema_1(con, "old")
    con.execute("CREATE TABLE old_vocabulary AS SELECT 'mine' AS owner")
    old = sqlnb.load(con, "old")
    assert [row[-1] for row in old.predict("t").fetchall()] == PREDICTIONS
    old.fit("t", "y", features=["v"])  # migrated: now schema 2, without groups
    assert old.meta["schema_version"] == 2
    assert "old_group_columns" not in _relations(con)
    old.drop()
    assert _relations(con) == {"t", "old_vocabulary"}


def test_merge_into_a_name_differing_only_by_case_adds_both(con):
    con.execute("CREATE TABLE t2 AS SELECT * FROM t WHERE v > 3")
    sqlnb.NaiveBayes("A", con=con).fit("t", "y", features=["v"])
    sqlnb.NaiveBayes("B", con=con).fit("t2", "y", features=["v"])
    merged = sqlnb.merge(con, ["A", "B"], into="a")
    con.execute("CREATE TABLE t12 AS SELECT * FROM t UNION ALL SELECT * FROM t2")
    union = sqlnb.NaiveBayes("union", con=con).fit("t12", "y", features=["v"])
    counts = "SELECT class, n, weight FROM {}_class_stats ORDER BY class"
    assert (con.execute(counts.format("a")).fetchall()
            == con.execute(counts.format("union")).fetchall())
    assert merged.predict("t").fetchall() == union.predict("t").fetchall()


def test_adding_a_model_to_itself_under_another_spelling_is_an_error(con):
    sqlnb.NaiveBayes("A", con=con).fit("t", "y", features=["v"])
    before = con.execute("SELECT * FROM a_class_stats ORDER BY class").fetchall()
    with pytest.raises(InvalidParameterError, match="cannot be added to itself"):
        sqlnb.merge(con, ["A", "a"], into="a")
    assert con.execute("SELECT * FROM a_class_stats ORDER BY class").fetchall() == before


def test_a_grouped_model_loaded_under_another_case_finds_its_groups(con):
    store = sqlnb.NaiveBayes("Store", con=con).fit("t", "y", features=["v"], group_by="g")
    expected = store.predict_proba("t").fetchall()
    assert sqlnb.load(con, "store").predict_proba("t").fetchall() == expected
    # an update under the other case continues the groups (the rows once more)
    sqlnb.NaiveBayes("store", con=con).partial_fit("t", "y", features=["v"])
    doubled = con.execute('SELECT sum(n) FROM "Store_group_class_stats"').fetchone()[0]
    assert doubled == 2 * con.execute("SELECT count(*) FROM t WHERE y IS NOT NULL "
                                      "AND g IS NOT NULL").fetchone()[0]
