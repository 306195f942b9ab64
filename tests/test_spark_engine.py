"""The Spark engine: sources, results, scripts, the dispatched upsert and versioned writes.

The upsert's oracle is DuckDB's ``INSERT ... ON CONFLICT DO UPDATE`` on the same rows: the
Spark spelling (a new table from a full outer join) must give the same doubles, bit for
bit. Every Spark test shares one local session (the ``spark`` fixture of conftest.py).
"""

from __future__ import annotations

import duckdb
import pytest

from sqlnb.engines import engine_for
from sqlnb.engines.dialects import DUCKDB, SPARK
from sqlnb.engines.spark import SparkEngine, split_statements
from sqlnb.errors import InvalidParameterError, UnknownColumnError
from sqlnb.templates import environment

T = pytest.importorskip("pyspark.sql.types")


@pytest.fixture
def engine(spark):
    engine = SparkEngine(spark)
    before = {t.name for t in spark.catalog.listTables()}
    yield engine
    for table in spark.catalog.listTables():  # what the test created, in the default db
        if table.name not in before:
            kind = "VIEW" if table.tableType in ("VIEW", "TEMPORARY") else "TABLE"
            spark.sql(f"DROP {kind} IF EXISTS {SPARK.ident(table.name)}")


def _temp_views(spark) -> list[str]:
    return [t.name for t in spark.catalog.listTables() if t.name.startswith("__sqlnb_source")]


# ---------------------------------------------------------------- the engine
def test_a_spark_session_gets_the_spark_engine(spark):
    engine = engine_for(spark)
    assert isinstance(engine, SparkEngine)
    assert engine.dialect is SPARK
    assert engine.database == spark.catalog.currentDatabase()
    lacks = engine.capabilities
    assert (lacks.transactions, lacks.upsert, lacks.temp_tables) == (False, False, False)
    assert engine.capabilities.stored_functions  # SQL scoring functions


def test_the_database_holding_the_statistics_can_be_chosen(spark):
    assert SparkEngine(spark, database="sqlnb_stats").table("m_meta") == \
        "`sqlnb_stats`.`m_meta`"
    with pytest.raises(InvalidParameterError, match="database"):
        SparkEngine(spark, database="")


def test_scripts_are_split_at_the_semicolons_that_end_statements():
    script = ("SELECT 'a;b\\';c' AS x;\n-- a comment; still one\nSELECT `we;ird` FROM t;"
              "/* ; */ SELECT 2;;\n-- only a comment;\n")
    assert split_statements(script) == [
        "SELECT 'a;b\\';c' AS x",
        "-- a comment; still one\nSELECT `we;ird` FROM t",
        "/* ; */ SELECT 2",
    ]


def test_fetch_binds_parameters_and_names_columns(engine):
    assert engine.fetch("SELECT ? + 1 AS x, ? AS s", [41, "it's"]) == [(42, "it's")]
    assert engine.fetch_with_names("SELECT 1 AS a, 'b' AS b") == (["a", "b"], [(1, "b")])


def test_execute_runs_every_statement_of_a_script(engine):
    engine.execute("CREATE TABLE se_script USING parquet AS SELECT 1 AS k;\n"
                   "CREATE OR REPLACE TEMP VIEW se_script_v AS SELECT k + 1 AS k FROM se_script;")
    assert engine.fetch("SELECT k FROM se_script_v") == [(2,)]
    engine.execute("DROP VIEW se_script_v")


# ---------------------------------------------------------------- sources and results
def test_a_catalog_table_is_read_by_name_with_spark_types(engine, spark):
    spark.sql("CREATE TABLE se_people USING parquet AS "
              "SELECT CAST(1 AS BIGINT) AS id, 2.5D AS x, 'a' AS `we``ird`")
    source = engine.source("se_people")
    assert source.sql == "`se_people`"
    assert source.columns == {"id": "bigint", "x": "double", "we`ird": "string"}
    assert [SPARK.kind(t) for t in source.columns.values()] == ["integer", "float", "text"]


def test_parquet_globs_and_csv_files_are_sources(engine, spark, tmp_path):
    frame = spark.createDataFrame([(1, 0.5), (2, 1.5)], "id bigint, x double")
    frame.write.parquet(str(tmp_path / "p" / "part1.parquet"))
    frame.write.parquet(str(tmp_path / "p" / "part2.parquet"))
    (tmp_path / "rows.csv").write_text("id,x\n1,0.5\n2,1.5\n")
    glob = engine.source(str(tmp_path / "p" / "*.parquet"))
    assert engine.fetch(f"SELECT count(*), sum(x) FROM {glob.sql}") == [(4, 4.0)]
    csv = engine.source(str(tmp_path / "rows.csv"))
    assert csv.columns == {"id": "int", "x": "double"}
    engine.release(glob)
    engine.release(csv)
    assert _temp_views(spark) == []


def test_a_dataframe_source_is_a_temporary_view_dropped_once_the_result_is_planned(
        engine, spark):
    frame = spark.createDataFrame([(1, 2.0), (2, 3.0)], "a bigint, b double")
    source = engine.source(frame)
    assert _temp_views(spark) == [source.registered]
    result = engine.lazy(source, f"SELECT a, b * 2 AS c FROM {source.sql}")
    assert _temp_views(spark) == []
    assert type(result).__name__ == "DataFrame"
    assert sorted(tuple(r) for r in result.collect()) == [(1, 4.0), (2, 6.0)]


def test_an_unreadable_source_is_an_unknown_column_error(engine, spark):
    with pytest.raises(UnknownColumnError, match="cannot read source 'se_no_such_table'"):
        engine.source("se_no_such_table")
    with pytest.raises(UnknownColumnError, match="cannot read source"):
        engine.source("/nonexistent/dir/*.parquet")
    assert _temp_views(spark) == []


# ---------------------------------------------------------------- a dry run
def _catalog(spark) -> tuple[list[tuple], list[str]]:
    """Every table and view (temporary ones too) and every SQL function of the database."""
    return (sorted(tuple(row) for row in spark.sql("SHOW TABLES").collect()),
            sorted(row[0] for row in spark.sql("SHOW USER FUNCTIONS").collect()))


def test_a_dry_run_keeps_what_it_would_run_and_leaves_the_catalog_as_it_was(spark):
    engine = SparkEngine(spark)
    engine.execute("CREATE TABLE se_dry_kept USING parquet AS SELECT 1 AS x")
    with engine.transaction():  # a versioned table, as a write leaves it
        version = engine.stage(["se_dry_t"], lambda switched: None)
        engine.execute(f"CREATE TABLE {engine.version_table('se_dry_t', version)} "
                       "USING parquet AS SELECT 1 AS x")
    before = _catalog(spark)
    with engine.rolled_back("a test") as dry:
        new = engine.version_table("se_dry_t", engine.stage(["se_dry_t"], lambda _: None))
        engine.execute(f"CREATE TABLE {new} USING parquet AS SELECT 2 AS x")
        engine.execute(f"INSERT INTO {new} VALUES (3)")  # its own table: runs
        assert sorted(engine.fetch(f"SELECT x FROM {new}")) == [(2,), (3,)]
        engine.execute("INSERT INTO default.se_dry_kept VALUES (4)")  # kept, not run
        engine.execute("DROP TABLE default.se_dry_kept")
        engine.execute("CREATE OR REPLACE FUNCTION default.se_dry_f(x INT) RETURNS INT RETURN x")
    assert _catalog(spark) == before
    assert engine.fetch("SELECT x FROM se_dry_kept") == [(1,)]
    assert engine.fetch("SELECT x FROM se_dry_t") == [(1,)]
    assert dry.created == [new]
    ran = [" ".join(s.split()) for s in dry.statements]
    assert ran[-2:] == [  # the switch, then the old version's drop: kept, not run
        f"CREATE OR REPLACE VIEW `default`.`se_dry_t` AS SELECT * FROM {new}",
        f"DROP TABLE IF EXISTS {engine.version_table('se_dry_t', version)}"]
    assert "CREATE OR REPLACE FUNCTION default.se_dry_f(x INT) RETURNS INT RETURN x" in ran


def test_a_dry_run_that_fails_midway_leaves_nothing_behind(spark):
    engine = SparkEngine(spark)
    before = _catalog(spark)
    with pytest.raises(ZeroDivisionError), engine.rolled_back("a test"):
        new = engine.version_table("se_dry_new", engine.stage(["se_dry_new"], lambda _: None))
        engine.execute(f"CREATE TABLE {new} USING parquet AS SELECT 2 AS x")
        engine.execute("CREATE TABLE default.se_dry_scratch USING parquet AS SELECT 1 AS x")
        engine.execute("CREATE VIEW default.se_dry_view AS SELECT 1 AS x")
        1 / 0  # noqa: B018 - the write fails here
    assert _catalog(spark) == before
    with engine.transaction():  # and the engine writes again
        engine.execute("CREATE TABLE default.se_dry_after USING parquet AS SELECT 1 AS x")
    assert engine.fetch("SELECT x FROM se_dry_after") == [(1,)]


# ---------------------------------------------------------------- the dispatched upsert
GAUSSIAN_OLD = [("a", "x0", 3, 3.0, 1.5, 0.75, 1.5, 0.75),
                ("a", "x1", 2, 2.5, -0.25, 2.0, -0.5, 1.0),
                ("b", "x0", 4, 4.0, 10.0, 8.0, 10.0, 8.0),
                ("b", "x1", 4, 4.0, 1e-3, 1e-7, 1e-3, 1e-7)]
GAUSSIAN_BATCH = [("a", "x0", 2, 1.5, 2.25, 0.5, 2.0, 0.25),
                  ("b", "x1", 1, 0.5, 1.0 / 3.0, 0.0, 1.0 / 3.0, 0.0),
                  ("c", "x0", 5, 5.0, -7.125, 3.0, -7.125, 3.0)]
GAUSSIAN_SCHEMA = [("class", "VARCHAR"), ("feature", "VARCHAR"), ("n", "BIGINT"),
                   ("weight", "DOUBLE"), ("mean", "DOUBLE"), ("m2", "DOUBLE"),
                   ("n_mean", "DOUBLE"), ("n_m2", "DOUBLE")]


def _tables(prefix: str, dialect, *, spark_next: bool = False) -> dict[str, str]:
    names = {role: dialect.ident(f"{prefix}_{role}")
             for role in ("class_stats", "feature_stats", "batch")}
    if spark_next:
        names["next_feature_stats"] = dialect.ident(f"{prefix}_feature_stats__v2")
    return names


def _duckdb_table(con, name: str, schema, rows, key: list[str] | None = None) -> None:
    columns = ", ".join(f"{c} {t}" for c, t in schema)
    primary = f", PRIMARY KEY ({', '.join(key)})" if key else ""
    con.execute(f"CREATE TABLE {name} ({columns}{primary})")
    con.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' for _ in schema)})", rows)


def _spark_table(spark, name: str, schema, rows) -> None:
    spark_types = {"VARCHAR": "string", "BIGINT": "bigint", "DOUBLE": "double"}
    ddl = ", ".join(f"`{c}` {spark_types[t]}" for c, t in schema)
    spark.createDataFrame(rows, ddl).write.format("parquet").saveAsTable(name)


@pytest.mark.parametrize("sign", [1, -1])
def test_the_spark_upsert_gives_duckdbs_gaussian_moments_bit_for_bit(engine, spark, sign):
    """The Chan update, and its reverse (forget), on keys in both tables and in one only."""
    batch = GAUSSIAN_BATCH if sign > 0 else GAUSSIAN_BATCH[:2]  # forget what was learned
    moments = "SELECT class, feature, n, weight, mean, m2, n_mean, n_m2 FROM {}"
    con = duckdb.connect()
    _duckdb_table(con, "g_feature_stats", GAUSSIAN_SCHEMA, GAUSSIAN_OLD, ["class", "feature"])
    _duckdb_table(con, "g_batch", GAUSSIAN_SCHEMA, batch)
    family = environment(DUCKDB).get_template("families/gaussian.sql").module
    con.execute(family.upsert(_tables("g", DUCKDB), moments.format('"g_batch"'), sign))
    expected = con.execute("SELECT * FROM g_feature_stats ORDER BY class, feature").fetchall()

    _spark_table(spark, "sg_feature_stats", GAUSSIAN_SCHEMA, GAUSSIAN_OLD)
    _spark_table(spark, "sg_batch", GAUSSIAN_SCHEMA, batch)
    family = environment(SPARK).get_template("families/gaussian.sql").module
    engine.execute(family.upsert(_tables("sg", SPARK, spark_next=True),
                                 moments.format("`sg_batch`"), sign))
    got = engine.fetch("SELECT * FROM `sg_feature_stats` ORDER BY class, feature")
    assert [[float(v).hex() if isinstance(v, float) else v for v in row] for row in got] == \
        [[float(v).hex() if isinstance(v, float) else v for v in row] for row in expected]
    assert len(got) == (5 if sign > 0 else 4)


COUNTS_SCHEMA = [("class", "VARCHAR"), ("feature", "VARCHAR"), ("n", "BIGINT"),
                 ("count", "DOUBLE"), ("weight", "DOUBLE")]
CATEGORY_SCHEMA = [("class", "VARCHAR"), ("feature", "VARCHAR"), ("category", "VARCHAR"),
                   ("n", "BIGINT"), ("count", "DOUBLE")]
# (family template, schema, key, stored rows, batch rows): keys on both sides and on one.
COUNT_CASES = {
    "counts": ("families/counts.sql", COUNTS_SCHEMA, ["class", "feature"],
               [("a", "x0", 2, 3.5, 2.0), ("a", "x1", 2, 0.1, None), ("b", "x0", 1, 1.0, 1.0)],
               [("a", "x0", 1, 0.25, 0.5), ("a", "x1", 3, 0.2, None), ("c", "x1", 1, 4.0, 1.0)]),
    "categorical": ("families/categorical.sql", CATEGORY_SCHEMA, ["class", "feature", "category"],
                    [("a", "x0", "red", 2, 2.0), ("a", "x0", "it's", 1, 0.5)],
                    [("a", "x0", "red", 1, 1.25), ("b", "x0", "red", 1, 1.0)]),
}


@pytest.mark.parametrize("case", COUNT_CASES)
@pytest.mark.parametrize("sign", [1, -1])
def test_the_spark_upsert_gives_duckdbs_counts(engine, spark, case, sign):
    template, schema, key, old, batch = COUNT_CASES[case]
    columns = ", ".join(c for c, _ in schema)
    con = duckdb.connect()
    _duckdb_table(con, "k_feature_stats", schema, old, key)
    _duckdb_table(con, "k_batch", schema, batch)
    family = environment(DUCKDB).get_template(template).module
    con.execute(family.upsert(_tables("k", DUCKDB), f'SELECT {columns} FROM "k_batch"', sign))
    expected = con.execute(f"SELECT * FROM k_feature_stats ORDER BY {', '.join(key)}").fetchall()

    _spark_table(spark, f"sk_{case}_{sign + 1}_feature_stats", schema, old)
    _spark_table(spark, f"sk_{case}_{sign + 1}_batch", schema, batch)
    tables = _tables(f"sk_{case}_{sign + 1}", SPARK, spark_next=True)
    family = environment(SPARK).get_template(template).module
    engine.execute(family.upsert(tables, f"SELECT {columns} FROM {tables['batch']}", sign))
    got = engine.fetch(f"SELECT * FROM {tables['feature_stats']} ORDER BY {', '.join(key)}")
    assert got == expected
    assert len(got) == len({r[:len(key)] for r in old + batch})


# How merge.sql folds a batch's class totals in (the other upserts take the same macro).
CLASS_UPSERT = """
{% from 'update/incremental.sql' import added %}
{% set rows %}SELECT class, n, weight FROM {{ t.batch }} WHERE feature IS NULL{% endset %}
{% call(column, old, new) sql.upsert(t.class_stats, ['class'], ['n', 'weight'], rows,
                                     t.get('next_class_stats')) -%}
{% if column == 'n' %}{{ old }}.n + {{ new }}.n{% else %}{{ added(old ~ '.weight', new ~ '.weight', 1) }}{% endif %}
{%- endcall %}
"""


def test_the_spark_upsert_adds_class_totals_as_duckdb_does(engine, spark):
    schema = [("class", "VARCHAR"), ("n", "BIGINT"), ("weight", "DOUBLE"),
              ("feature", "VARCHAR")]
    old = [("a", 3, 3.5), ("b", 1, 0.1)]
    batch = [("b", 2, 0.2, None), ("c", 1, 1.0, None), ("c", 7, 7.0, "x0")]
    con = duckdb.connect()
    _duckdb_table(con, "u_class_stats", schema[:3], old, ["class"])
    _duckdb_table(con, "u_batch", schema, batch)
    con.execute(environment(DUCKDB).from_string(CLASS_UPSERT).render(t=_tables("u", DUCKDB)))
    expected = con.execute("SELECT * FROM u_class_stats ORDER BY class").fetchall()
    assert expected == [("a", 3, 3.5), ("b", 3, 0.1 + 0.2), ("c", 1, 1.0)]

    _spark_table(spark, "su_class_stats", schema[:3], old)
    _spark_table(spark, "su_batch", schema, batch)
    tables = {**_tables("su", SPARK), "next_class_stats": "`su_class_stats__v2`"}
    engine.execute(environment(SPARK).from_string(CLASS_UPSERT).render(t=tables))
    assert engine.fetch("SELECT * FROM su_class_stats ORDER BY class") == expected


# ---------------------------------------------------------------- versioned writes
def _stats(engine, name: str) -> list[tuple]:
    return engine.fetch(f"SELECT * FROM {engine.table(name)} ORDER BY class")


def test_a_versioned_write_switches_the_view_and_drops_the_old_version(engine):
    with engine.versioned("vw_class_stats") as new:
        engine.execute(f"CREATE TABLE {new} USING parquet AS SELECT 'a' AS class, 1 AS n")
    assert engine.current_version("vw_class_stats") == 1
    with engine.versioned("vw_class_stats") as new:
        engine.execute(f"CREATE TABLE {new} USING parquet AS "
                       "SELECT class, n + 1 AS n FROM vw_class_stats")
    assert _stats(engine, "vw_class_stats") == [("a", 2)]
    assert (engine.current_version("vw_class_stats"), engine.versions("vw_class_stats")) == \
        (2, [2])


def test_a_write_failing_on_its_last_row_leaves_the_statistics_as_they_were(engine, spark):
    """A partial_fit's batch whose source raises on its last row: the upsert's new version
    fails, readers keep the old statistics, and nothing is left behind."""
    with engine.versioned("vf_class_stats") as new:
        engine.execute(f"CREATE TABLE {new} USING parquet AS "
                       "SELECT 'a' AS class, CAST(3 AS BIGINT) AS n, 3.5D AS weight")
    spark.createDataFrame(
        [("a", 1, 1.0, 1), ("b", 1, 1.0, 2), ("a", 1, 1.0, 3)],
        "class string, n bigint, weight double, row bigint",
    ).createOrReplaceTempView("vf_source")
    failing = ("SELECT class, sum(n) AS n, sum(CASE WHEN row = 3 THEN "
               "CAST(raise_error('the source broke on its last row') AS DOUBLE) ELSE weight END) "
               "AS weight, CAST(NULL AS STRING) AS feature FROM vf_source GROUP BY class")
    tables = {"class_stats": engine.table("vf_class_stats"), "batch": f"({failing})"}
    with pytest.raises(Exception, match="the source broke on its last row"), \
            engine.versioned("vf_class_stats") as new:
        engine.execute(environment(SPARK).from_string(CLASS_UPSERT).render(
            t={**tables, "next_class_stats": new}))
    assert _stats(engine, "vf_class_stats") == [("a", 3, 3.5)]
    assert engine.versions("vf_class_stats") == [1]
    spark.catalog.dropTempView("vf_source")


def test_a_killed_writers_leftover_version_is_cleaned_by_the_next_write(engine):
    with engine.versioned("vk_class_stats") as new:
        engine.execute(f"CREATE TABLE {new} USING parquet AS SELECT 'a' AS class, 1 AS n")
    # a writer killed after creating its version, before switching the view to it
    engine.execute("CREATE TABLE vk_class_stats__v2 USING parquet AS SELECT 'z' AS class, 9 AS n")
    assert _stats(engine, "vk_class_stats") == [("a", 1)]
    with engine.versioned("vk_class_stats") as new:
        engine.execute(f"CREATE TABLE {new} USING parquet AS "
                       "SELECT class, n + 1 AS n FROM vk_class_stats")
    assert _stats(engine, "vk_class_stats") == [("a", 2)]
    assert (engine.current_version("vk_class_stats"), engine.versions("vk_class_stats")) == \
        (3, [3])


def test_tables_written_together_switch_with_the_last_one(engine):
    """The statistics, then the metadata naming their version: a failure writing the
    metadata leaves readers that follow it on the old statistics."""
    names = ["vt_feature_stats", "vt_meta"]
    with engine.versioned_together(names) as new:
        engine.execute(f"CREATE TABLE {new['vt_feature_stats']} USING parquet AS "
                       "SELECT 'a' AS class, 1.5D AS mean")
        engine.execute(f"CREATE TABLE {new['vt_meta']} USING parquet AS SELECT 'm' AS model")
    with pytest.raises(Exception, match="the metadata write broke"), \
            engine.versioned_together(names) as new:
        engine.execute(f"CREATE TABLE {new['vt_feature_stats']} USING parquet AS "
                       "SELECT 'a' AS class, 9.0D AS mean")
        engine.execute(f"CREATE TABLE {new['vt_meta']} USING parquet AS "
                       "SELECT raise_error('the metadata write broke') AS model")
    version = engine.current_version("vt_meta")
    assert version == 1
    assert engine.fetch(
        f"SELECT * FROM {engine.version_table('vt_feature_stats', version)}") == [("a", 1.5)]
    assert engine.fetch("SELECT * FROM vt_feature_stats") == [("a", 1.5)]
    assert (engine.versions("vt_feature_stats"), engine.versions("vt_meta")) == ([1], [1])
    with engine.versioned_together(names) as new:
        engine.execute(f"CREATE TABLE {new['vt_feature_stats']} USING parquet AS "
                       "SELECT class, mean + 1 AS mean FROM vt_feature_stats")
        engine.execute(f"CREATE TABLE {new['vt_meta']} USING parquet AS SELECT 'm' AS model")
    assert engine.current_version("vt_meta") == 2
    assert engine.fetch("SELECT * FROM vt_feature_stats") == [("a", 2.5)]
    assert (engine.versions("vt_feature_stats"), engine.versions("vt_meta")) == ([2], [2])
