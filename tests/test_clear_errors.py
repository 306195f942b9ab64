"""Each failure that could escape as a raw DuckDB, Jinja or Python exception raises an
``sqlnb.errors`` exception whose message says what to do, and leaves the database as it
was."""

from __future__ import annotations

import re

import duckdb
import pytest

import sqlnb
from sqlnb import errors


@pytest.fixture
def data(con):
    con.execute("""
        CREATE TABLE t AS SELECT
            i % 2 AS y, CAST(i AS DOUBLE) + 10 * (i % 2) AS x, (i % 3)::VARCHAR AS s,
            i % 4 AS g, i % 3 = 0 AS flag, NULL::INTEGER AS nothing
        FROM range(40) r(i)
    """)
    return con


def tables(con) -> list[str]:
    return sorted(r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() UNION ALL "
        "SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall())


def test_auto_models_refuse_a_bad_group_column_before_writing(data):
    before = tables(data)
    with pytest.raises(errors.UnknownColumnError, match="group column 'nowhere'"):
        sqlnb.NaiveBayes("a", con=data, family="auto").fit("t", "y", features=["x", "s"],
                                                          group_by="nowhere")
    with pytest.raises(errors.InvalidParameterError, match="group column 'x' cannot"):
        sqlnb.NaiveBayes("a", con=data, family="auto").fit("t", "y", features=["x", "s"],
                                                          group_by="x")
    assert tables(data) == before


@pytest.mark.parametrize("con_argument", ["models.duckdb", 42])
def test_con_must_be_a_connection(con_argument):
    with pytest.raises(errors.InvalidParameterError, match="con must be a DuckDB connection"):
        sqlnb.NaiveBayes("m", con=con_argument)
    with pytest.raises(errors.InvalidParameterError, match="con must be a DuckDB connection"):
        sqlnb.load(con_argument, "m")


def test_a_path_as_con_says_how_to_open_it():
    with pytest.raises(errors.InvalidParameterError,
                       match=r"duckdb.connect\('models.duckdb'\)"):
        sqlnb.NaiveBayes("m", con="models.duckdb")


@pytest.mark.parametrize("label_sql, label_type", [
    ("uuid()", "UUID"), ("CAST(i % 2 AS VARCHAR)::BLOB", "BLOB"), ("[i % 2]", "BIGINT[]"),
])
def test_labels_of_unusable_types_are_refused(con, label_sql, label_type):
    con.execute(f"CREATE TABLE t AS SELECT {label_sql} AS y, CAST(i AS DOUBLE) AS x "
                "FROM range(10) r(i)")
    with pytest.raises(errors.InvalidDataError, match=rf"type {re.escape(label_type)}.*CAST"):
        sqlnb.NaiveBayes("m", con=con).fit("t", "y")
    assert tables(con) == ["t"]


def test_boolean_weights_are_refused(data):
    with pytest.raises(errors.InvalidDataError, match=r"'flag' has type BOOLEAN.*CAST"):
        sqlnb.NaiveBayes("m", con=data).fit("t", "y", features=["x"], weight="flag")
    with pytest.raises(errors.InvalidDataError, match="'flag' has type BOOLEAN"):
        sqlnb.NaiveBayes("m", con=data).partial_fit("t", "y", features=["x"], weight="flag")


def test_token_patterns_that_re2_cannot_compile_are_refused(con):
    con.execute("CREATE TABLE docs AS SELECT i % 2 AS y, 'a word ' || i AS body "
                "FROM range(10) r(i)")
    with pytest.raises(errors.InvalidParameterError, match="not in DuckDB's regular"):
        sqlnb.NaiveBayes("m", con=con, family="multinomial").fit(
            "docs", "y", text="body", token_pattern=r"(?<=\s)\w+")  # look-behind
    assert tables(con) == ["docs"]


def test_a_relation_of_another_connection_is_refused(con):
    other = duckdb.connect()
    relation = other.sql("SELECT i % 2 AS y, CAST(i AS DOUBLE) AS x FROM range(10) r(i)")
    with pytest.raises(errors.InvalidDataError, match="another connection.*arrow"):
        sqlnb.NaiveBayes("m", con=con).fit(relation, "y")
    other.close()


def test_group_by_a_column_that_is_always_null_is_refused(data):
    with pytest.raises(errors.InvalidDataError, match=r"\['nothing'\] are NULL in every"):
        sqlnb.NaiveBayes("m", con=data).fit("t", "y", features=["x"], group_by="nothing")
    assert tables(data) == ["t"]


def test_labels_differing_only_by_case_explain_the_proba_macro(con):
    con.execute("CREATE TABLE t AS SELECT CASE WHEN i % 2 = 0 THEN 'A' ELSE 'a' END AS y, "
                "CAST(i % 2 AS DOUBLE) + i / 100 AS x FROM range(20) r(i)")
    model = sqlnb.NaiveBayes("m", con=con).fit("t", "y")
    assert con.execute("SELECT m_predict(t) FROM t LIMIT 2").fetchall() == [("A",), ("a",)]
    with pytest.raises(duckdb.InvalidInputException, match=r"differ only by case.*m_predict"):
        con.execute("SELECT m_predict_proba(t) FROM t").fetchall()
    # the Python API names the columns by label, both kept
    assert model.predict_proba("t").columns[-2:] == ["proba_A", "proba_a"]


class TestStoredModels:
    def test_a_model_of_a_newer_schema_is_neither_used_nor_rewritten(self, data):
        sqlnb.NaiveBayes("m", con=data).fit("t", "y", features=["x"])
        data.execute("UPDATE m_meta SET schema_version = 99")
        with pytest.raises(errors.IncompatibleModelError, match="newer sqlnb.*upgrade"):
            sqlnb.NaiveBayes("m", con=data).predict("t")
        with pytest.raises(errors.IncompatibleModelError, match="newer sqlnb"):
            sqlnb.NaiveBayes("m", con=data).partial_fit("t", "y", features=["x"])
        with pytest.raises(errors.IncompatibleModelError, match="newer sqlnb"):
            sqlnb.NaiveBayes("m", con=data).fit("t", "y", features=["x"])
        with pytest.raises(errors.ModelNotFoundError, match="newer sqlnb"):
            sqlnb.load(data, "m")
        assert data.execute("SELECT schema_version FROM m_meta").fetchall() == [(99,)]

    def test_a_model_missing_a_relation_says_to_refit_or_drop(self, data):
        sqlnb.NaiveBayes("m", con=data).fit("t", "y", features=["x"])
        data.execute("DROP VIEW m_feature_params")
        with pytest.raises(errors.IncompatibleModelError, match="incomplete.*m_feature_params"):
            sqlnb.load(data, "m").predict("t")

    def test_corrupt_metadata_says_to_refit_or_drop(self, data):
        sqlnb.NaiveBayes("m", con=data).fit("t", "y", features=["x"])
        data.execute("UPDATE m_meta SET features = '{not json'")
        with pytest.raises(errors.IncompatibleModelError, match="corrupt metadata.*drop"):
            sqlnb.load(data, "m")
        refitted = sqlnb.NaiveBayes("m", con=data).fit("t", "y", features=["x"])  # the remedy
        assert refitted.features_ == ["x"]


def test_writes_to_a_read_only_database_are_refused_before_any_statement(tmp_path):
    path = str(tmp_path / "models.duckdb")
    writer = duckdb.connect(path)
    writer.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i AS DOUBLE) AS x "
                   "FROM range(10) r(i)")
    expected = sqlnb.NaiveBayes("m", con=writer).fit("t", "y").predict("t").fetchall()
    writer.close()
    reader = duckdb.connect(path, read_only=True)
    model = sqlnb.load(reader, "m")
    for write in (lambda: sqlnb.NaiveBayes("n", con=reader).fit("t", "y"),
                  lambda: model.partial_fit("t", "y"),
                  model.drop):
        with pytest.raises(errors.ReadOnlyError, match="opened read-only"):
            write()
    # reading still works, and nothing was changed
    assert model.predict("t").fetchall() == expected
    reader.close()


def test_a_write_conflict_is_a_retryable_error_that_changes_nothing(data):
    sqlnb.NaiveBayes("m", con=data).fit("t", "y", features=["x"])
    other = data.cursor()
    other.begin()
    other.execute("UPDATE m_class_stats SET n = n + 1")  # not committed yet
    with pytest.raises(errors.ConflictError, match="retry") as caught:
        sqlnb.NaiveBayes("m", con=data).partial_fit("t", "y", features=["x"])
    assert caught.value.retryable
    other.rollback()
    assert data.execute("SELECT sum(n) FROM m_class_stats").fetchall() == [(40,)]
    sqlnb.NaiveBayes("m", con=data).partial_fit("t", "y", features=["x"])  # the retry
    assert data.execute("SELECT sum(n) FROM m_class_stats").fetchall() == [(80,)]
