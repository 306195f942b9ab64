"""Spark SQL: the dialect, and models fitted in DuckDB scored in Spark through
``to_sql(dialect="spark")``.

The oracle is the model's own DuckDB scoring (whose parity with scikit-learn the other
suites check): on the same rows, Spark must give identical labels and probabilities within
1e-12. Every Spark test shares one local session (the ``spark`` fixture of conftest.py).
"""

from __future__ import annotations

import math
import random

import duckdb
import numpy as np
import pytest
from conftest import flat

import sqlnb
from sqlnb.engines.dialects import DUCKDB, SPARK, dialect_named
from sqlnb.engines.spark import SparkEngine
from sqlnb.errors import InvalidParameterError, UnsupportedError
from sqlnb.templates import environment

T = pytest.importorskip("pyspark.sql.types")

HOSTILE_TEXT = [
    "it's",
    "'; DROP TABLE users; --",
    "back\\slash",
    "ends with \\",
    "\\' quote after a backslash",
    "\\\\ two backslashes",
    "line\nbreak",
    "carriage\rreturn\ttab",
    "*/ closes /* opens",
    "-- a comment",
    'double "quotes"',
    "`backticks`",
    "ünïcödé ❄ 中文 \U0001f600",
    "\\u0041 not an escape",
    "$1 ${x} {{ jinja }}",
    "${env:PATH}",
    "${sqlnb.injected} $${system:user.home}",
    "",
]
# Three class labels with the characters Spark's and DuckDB's literals treat differently;
# the last ends with a backslash, which would continue a Spark line comment.
LABELS = ["it's", "back\\slash\nbreak", "❄ ends with \\"]


# ---------------------------------------------------------------- the dialect
def test_identifiers_are_backticked_with_backticks_doubled():
    assert SPARK.ident("plain") == "`plain`"
    assert SPARK.ident("we`ird") == "`we``ird`"
    assert SPARK.qualified("db.t") == "`db`.`t`"


def test_string_literals_escape_backslashes_and_quotes():
    assert SPARK.lit("it's") == "'it\\'s'"
    assert SPARK.lit("a\\b") == "'a\\\\b'"
    assert DUCKDB.lit("a\\b") == "'a\\b'"  # DuckDB reads backslashes as they are


def test_spark_type_names_have_kinds():
    kinds = {name: SPARK.kind(name) for name in [
        "int", "bigint", "smallint", "tinyint", "double", "float", "boolean", "string",
        "varchar(10)", "decimal(10,2)", "array<int>", "map<string,int>",
        "struct<a:int>", "date", "binary"]}
    assert kinds == {
        "int": "integer", "bigint": "integer", "smallint": "integer", "tinyint": "integer",
        "double": "float", "float": "float", "boolean": "bool", "string": "text",
        "varchar(10)": "text", "decimal(10,2)": "decimal", "array<int>": "nested",
        "map<string,int>": "nested", "struct<a:int>": "nested", "date": "other",
        "binary": "other"}


def test_duckdb_types_are_spelt_as_spark_types_or_refused():
    assert [SPARK.type_name(t) for t in ["VARCHAR", "INTEGER", "BIGINT", "UBIGINT",
                                         "HUGEINT", "TIMESTAMP", "DECIMAL(18,3)",
                                         "ENUM('a', 'b')"]] == [
        "STRING", "INT", "BIGINT", "DECIMAL(20,0)", "DECIMAL(38,0)", "TIMESTAMP_NTZ",
        "DECIMAL(18,3)", "STRING"]
    with pytest.raises(ValueError, match="TIME"):
        SPARK.type_name("TIME")


def test_names_spark_would_substitute_a_variable_into_are_refused():
    """Spark replaces ${...} in a statement's text before parsing it, backticks or not."""
    with pytest.raises(ValueError, match="substitute"):
        SPARK.ident("a${env:PATH}")


def test_an_unknown_dialect_is_refused_with_the_choices():
    with pytest.raises(InvalidParameterError, match="'duckdb', 'spark'"):
        dialect_named("postgres")


# ---------------------------------------------------------------- literals, through Spark
@pytest.fixture
def injected(spark):
    """A session setting whose value, substituted for ${sqlnb.injected}, would end a line
    comment and add a column to the statement."""
    spark.conf.set("sqlnb.injected", "\n, 3 AS z -- ")
    yield
    spark.conf.unset("sqlnb.injected")


def test_hostile_strings_round_trip_through_spark_literals(spark, injected):
    select = ", ".join(f"{SPARK.lit(text)} AS v{i}" for i, text in enumerate(HOSTILE_TEXT))
    assert list(spark.sql(f"SELECT {select}").collect()[0]) == HOSTILE_TEXT


def test_hostile_identifiers_round_trip_through_spark(spark):
    names = [text for text in HOSTILE_TEXT if text and "${" not in text]
    select = ", ".join(f"{i} AS {SPARK.ident(name)}" for i, name in enumerate(names))
    frame = spark.sql(f"SELECT {select}")
    assert frame.columns == names
    # and read back by the quoted name
    assert list(frame.select([frame[SPARK.ident(n)] for n in names]).collect()[0]) == \
        list(range(len(names)))


def test_doubles_round_trip_bit_exactly(spark):
    rng = random.Random(16)
    values = [0.0, -0.0, 0.1, 1 / 3, -2.5, 1e300, -1e-300, 5e-324, 2.2250738585072014e-308,
              1.7976931348623157e308, float("inf"), float("-inf"), 123456789.0, 1e16]
    values += [rng.uniform(-1e6, 1e6) for _ in range(50)]
    values += [math.ldexp(rng.random(), rng.randint(-1070, 1020)) for _ in range(50)]
    select = ", ".join(f"{SPARK.lit(v)} AS v{i}" for i, v in enumerate(values))
    row = spark.sql(f"SELECT {select}").collect()[0]
    assert [float(v).hex() for v in row] == [v.hex() for v in values]
    assert math.isnan(spark.sql(f"SELECT {SPARK.lit(float('nan'))} AS v").collect()[0][0])


def test_comments_neither_swallow_nor_add_lines(spark, injected):
    texts = ["ends with \\", "line\nbreak \\", "*/ , 9 AS z /*", "\\\r\n\\",
             "${sqlnb.injected}"]
    columns = "\n".join(f", {i} AS c{i} -- {SPARK.comment(text)}\n"
                        f", {i} AS d{i} /* {SPARK.comment(text)} */"
                        for i, text in enumerate(texts))
    frame = spark.sql(f"SELECT 0 AS first{columns}")
    assert frame.columns == ["first"] + [f"{c}{i}" for i in range(len(texts)) for c in "cd"]


# ---------------------------------------------------------------- dispatched macros
def test_log_gamma_is_close_to_the_c_library_lgamma(spark):
    macro = environment(SPARK).globals["sql"].log_gamma
    values = [0.5, 1.0, 1.5, 2.0, 3.0, 7.0, 10.5, 42.0, 171.0, 1e4, 1e7]
    select = ", ".join(f"{macro(SPARK.lit(v))} AS v{i}" for i, v in enumerate(values))
    got = list(spark.sql(f"SELECT {select}").collect()[0])
    assert got == pytest.approx([math.lgamma(v) for v in values], rel=1e-14, abs=1e-14)


def test_other_dispatched_macros_run_on_spark(spark):
    sql = environment(SPARK).globals["sql"]
    engine = SparkEngine(spark)
    for _ in range(2):  # a batch table is written again by a rescan
        engine.execute(f"{sql.temp_table('`__sqlnb_scratch`')} SELECT 1 AS a, 'x' AS b, "
                       "2.5e0 AS c")
    try:
        row = spark.sql(
            f"SELECT {sql.all_except(['`a`'])}, {sql.as_text('c')} AS text, "
            f"{sql.is_number('c')} AS number, {sql.is_number(SPARK.lit(float('nan')))} AS nan, "
            f"{sql.is_finite('c')} AS finite, {sql.is_finite(SPARK.lit(float('inf')))} AS inf, "
            f"{sql.double_at(['0.5e0', '0.25e0'], 2)} AS second "
            "FROM `__sqlnb_scratch`").collect()[0]
    finally:
        spark.sql("DROP TABLE `__sqlnb_scratch`")
    assert row.asDict() == {"b": "x", "c": 2.5, "text": "2.5", "number": True, "nan": False,
                            "finite": True, "inf": False, "second": 0.25}


# ---------------------------------------------------------------- the same rows in both
COLUMNS = [  # name, DuckDB type, Spark type
    ("id", "INTEGER", T.IntegerType()),
    ("x0", "DOUBLE", T.DoubleType()),
    ("x1", "DOUBLE", T.DoubleType()),
    ("n0", "BIGINT", T.LongType()),
    ("n1", "BIGINT", T.LongType()),
    ("code", "BIGINT", T.LongType()),
    ("colour", "VARCHAR", T.StringType()),
    ("w", "DOUBLE", T.DoubleType()),
    ("y", "VARCHAR", T.StringType()),
]
COLOURS = ["red", "it's \\ blue", "grün\nline"]


def _rows(n: int = 36, missing: bool = False) -> list[tuple]:
    rng = np.random.default_rng(16)
    rows = []
    for i in range(n):
        k = i % 3
        row = [i, float(rng.normal(k, 1.0)), float(rng.normal(-k, 2.0)),
               int(rng.poisson(1 + 2 * k)), int(rng.poisson(3 - k)),
               int(rng.integers(0, 3 + k)), COLOURS[int(rng.integers(0, 3))],
               float(rng.uniform(0.5, 2.0)), LABELS[k]]
        if missing and i % 5 == 1:
            row[1] = None            # NULL
        if missing and i % 7 == 2:
            row[2] = float("nan")    # NaN is missing too
        if missing and i % 4 == 3:
            row[6] = None
        rows.append(tuple(row))
    return rows


def _both(con, spark, name: str, rows: list[tuple], columns=COLUMNS) -> None:
    """The table ``name`` in DuckDB and a temporary view of the same rows in Spark."""
    con.execute(f"CREATE TABLE {DUCKDB.ident(name)} ("
                + ", ".join(f"{DUCKDB.ident(c)} {t}" for c, t, _ in columns) + ")")
    con.executemany(f"INSERT INTO {DUCKDB.ident(name)} VALUES "
                    f"({', '.join('?' for _ in columns)})", rows)
    schema = T.StructType([T.StructField(c, t) for c, _, t in columns])
    spark.createDataFrame(rows, schema).createOrReplaceTempView(name)


def _by_id(rows, width: int) -> tuple[list, list]:
    """Sorted by the first column (id): the labels column, then the ``width`` last columns."""
    rows = sorted(rows, key=lambda r: r[0])
    return [r[-width - 1] for r in rows], flat([r[-width:] for r in rows])


def _assert_same_scores(con, spark, model, table: str) -> None:
    """Spark's predict_proba statement gives DuckDB's labels and probabilities."""
    result = spark.sql(model.to_sql(SPARK.ident(table), output="predict_proba",
                                    dialect="spark"))
    labels, proba = _by_id(result.collect(), len(LABELS))
    expected_labels = [r[-1] for r in sorted(model.predict(table).fetchall())]
    expected = flat(r[-len(LABELS):] for r in sorted(model.predict_proba(table).fetchall()))
    assert model.classes_ == sorted(LABELS)
    assert result.columns[-4:] == ["prediction"] + [f"proba_{c}" for c in model.classes_]
    assert labels == expected_labels
    assert proba == pytest.approx(expected, rel=0, abs=1e-12)


FAMILY_FEATURES = {
    "gaussian": ["x0", "x1"],
    "multinomial": ["n0", "n1"],
    "complement": ["n0", "n1"],
    "bernoulli": ["x0", "x1", "n1"],
    "categorical": ["code", "colour"],
    "poisson": ["n0", "n1"],
}


@pytest.fixture
def con():
    connection = duckdb.connect()
    yield connection
    connection.close()


@pytest.fixture
def shop(con, spark):
    _both(con, spark, "shop", _rows())
    return con


@pytest.mark.parametrize("family", list(FAMILY_FEATURES))
def test_to_sql_in_spark_scores_as_duckdb_does(shop, spark, family):
    model = sqlnb.NaiveBayes("m", con=shop, family=family)
    model.fit("shop", "y", features=FAMILY_FEATURES[family])
    # the statements predict runs and the one given to Spark agree row by row
    _assert_same_scores(shop, spark, model, "shop")


@pytest.mark.parametrize("family", ["gaussian", "multinomial"])
def test_weighted_fits_score_the_same_in_spark(shop, spark, family):
    model = sqlnb.NaiveBayes("m", con=shop, family=family)
    model.fit("shop", "y", features=FAMILY_FEATURES[family], weight="w")
    _assert_same_scores(shop, spark, model, "shop")


def test_poisson_joint_log_likelihood_in_spark_needs_no_lgamma(shop, spark):
    """Spark has no lgamma; the log(x!) of the joint log-likelihood is computed anyway."""
    model = sqlnb.NaiveBayes("m", con=shop, family="poisson")
    model.fit("shop", "y", features=["n0", "n1"])
    rows = spark.sql(model.to_sql("shop", output="joint", dialect="spark")).collect()
    _, joint = _by_id(rows, len(LABELS))
    _, expected = _by_id(model.predict_joint_log_proba("shop").fetchall(), len(LABELS))
    assert joint == pytest.approx(expected, rel=1e-13)


def test_mixed_models_with_missing_values_score_the_same_in_spark(con, spark):
    _both(con, spark, "gaps", _rows(missing=True))
    model = sqlnb.NaiveBayes("m", con=con, family="auto")
    model.fit("gaps", "y", features=["x0", "x1", "code", "colour"])
    assert set(model.families_.values()) == {"gaussian", "categorical"}
    _assert_same_scores(con, spark, model, "gaps")


def test_log_proba_output_in_spark(shop, spark):
    model = sqlnb.NaiveBayes("m", con=shop, family="gaussian").fit("shop", "y",
                                                                    features=["x0", "x1"])
    rows = spark.sql(model.to_sql("shop", output="log_proba", dialect="spark")).collect()
    _, got = _by_id(rows, len(LABELS))
    _, expected = _by_id(model.predict_log_proba("shop").fetchall(), len(LABELS))
    assert got == pytest.approx(expected, rel=0, abs=1e-12)


def test_hostile_names_labels_and_categories_score_the_same_in_spark(con, spark):
    """A feature and a model named with quotes, backticks and backslashes. (The source is
    SQL text the caller writes, as on DuckDB: a Spark view name is a plain one.)"""
    feature, table = "we`ird 'col' \\", "hostile"
    columns = [("id", "INTEGER", T.IntegerType()), (feature, "VARCHAR", T.StringType()),
               ("x0", "DOUBLE", T.DoubleType()), ("y", "VARCHAR", T.StringType())]
    rows = [(i, HOSTILE_TEXT[i % len(HOSTILE_TEXT)], float(i % 3) + 0.25 * i, LABELS[i % 3])
            for i in range(32)]
    _both(con, spark, table, rows, columns)
    model = sqlnb.NaiveBayes("m`odel \\", con=con, family="auto")
    model.fit(table, "y", features=[feature, "x0"])
    assert model.families_ == {feature: "categorical", "x0": "gaussian"}
    _assert_same_scores(con, spark, model, table)


def test_missing_error_raises_in_spark_naming_the_feature(con, spark):
    _both(con, spark, "gaps", _rows(missing=True))
    model = sqlnb.NaiveBayes("m", con=con, family="gaussian", missing="error")
    con.execute("CREATE VIEW complete AS SELECT * FROM gaps WHERE x0 IS NOT NULL "
                "AND NOT isnan(x1)")
    model.fit("complete", "y", features=["x0", "x1"])
    errors = pytest.importorskip("pyspark.errors")
    with pytest.raises(errors.PySparkException, match=r"missing value \(NULL or NaN\) in feature x0"):
        spark.sql(model.to_sql("gaps", dialect="spark")).collect()


@pytest.mark.parametrize("family", ["gaussian", "auto"])
def test_a_per_group_models_statement_scores_in_spark_as_duckdb_does(shop, spark, family):
    model = sqlnb.NaiveBayes("m", con=shop, family=family)
    model.fit("shop", "y", features=["x0", "n0", "colour"] if family == "auto" else
              ["x0", "x1"], group_by="code")
    # the groups' parameters go in the statement as rows of VALUES, joined by group
    _assert_same_scores(shop, spark, model, "shop")


# ---------------------------------------------------------------- what Spark cannot do yet
def test_a_text_models_spark_statement_spells_the_tokeniser_for_spark(con):
    con.execute("CREATE TABLE docs AS SELECT * FROM (VALUES ('good day', 'a'), "
                "('bad day', 'b')) AS t(body, y)")
    model = sqlnb.NaiveBayes("m", con=con, family="multinomial").fit("docs", "y", text="body")
    # (run on Spark against DuckDB's answers in tests/test_spark_text.py)
    statement = model.to_sql("docs", dialect="spark")
    assert "explode(" in statement and "unnest(" not in statement
    assert "'(?du)" in statement  # the token pattern in Java's syntax
    assert model.to_sql("docs").startswith("--")  # DuckDB's statement exists


def test_labels_of_a_type_spark_lacks_are_refused(con):
    con.execute("CREATE TABLE clock AS SELECT i * 1.0 AS x, "
                "CAST(CASE WHEN i % 2 = 0 THEN '08:00' ELSE '17:30' END AS TIME) AS y "
                "FROM range(10) AS r(i)")
    model = sqlnb.NaiveBayes("m", con=con, family="gaussian").fit("clock", "y")
    with pytest.raises(UnsupportedError, match="type TIME"):
        model.to_sql("clock", dialect="spark")
    assert model.to_sql("clock").startswith("-- Model m")  # DuckDB's still works


def test_an_unknown_dialect_in_to_sql_is_refused(shop):
    model = sqlnb.NaiveBayes("m", con=shop).fit("shop", "y", features=["x0"])
    with pytest.raises(InvalidParameterError, match="dialect must be one of"):
        model.to_sql("shop", dialect="postgres")


def test_a_label_spark_would_substitute_into_is_kept_as_a_label_and_refused_as_a_name(
        con, spark, injected):
    rows = [(i, float(i % 2) + 0.1 * i, "${sqlnb.injected}" if i % 2 else "plain")
            for i in range(12)]
    columns = [("id", "INTEGER", T.IntegerType()), ("x0", "DOUBLE", T.DoubleType()),
               ("y", "VARCHAR", T.StringType())]
    _both(con, spark, "dollars", rows, columns)
    model = sqlnb.NaiveBayes("m", con=con, family="gaussian").fit("dollars", "y",
                                                                   features=["x0"])
    labels, _ = _by_id(spark.sql(model.to_sql("dollars", dialect="spark")).collect(), 0)
    assert labels == [r[-1] for r in sorted(model.predict("dollars").fetchall())]
    assert "${sqlnb.injected}" in labels
    with pytest.raises(UnsupportedError, match="substitute a variable"):
        model.to_sql("dollars", output="predict_proba", dialect="spark")

