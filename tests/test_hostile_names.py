"""User text never changes the shape of a statement sqlnb runs.

Model, table and column names and class labels reach SQL through the dialect's quoting
(``ident``), literal (``lit``) and comment (``comment``) functions. The oracle is DuckDB's
own lexer and parser: every template, rendered for a hostile name, must give the same
statements, of the same types, with the same tokens and the same parse tree as for a
benign name.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import duckdb
import jinja2
import pyarrow as pa
import pytest

import sqlnb
import sqlnb.diagnostics
import sqlnb.engines.base
import sqlnb.engines.source
import sqlnb.exchange
import sqlnb.progress
import sqlnb.templates
import sqlnb.text
from sqlnb.sklearn import GaussianNB
from sqlnb.templates import template_dir

# Every character Python's str.splitlines() breaks at (DuckDB itself ends a `--` comment at
# \n and \r only), quotes, both comment syntaxes and a statement separator.
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
HOSTILE = LINE_BREAKS + "'\"*/ /* -- ; DROP TABLE users; --"


def _workflow(con: duckdb.DuckDBPyConnection, text: str) -> None:
    """Every public path that renders templates, with ``text`` in the names and labels."""
    name, table, column = "m" + text, "t" + text, "x" + text
    labels = ["a" + text, "b" + text]
    con.execute("CREATE TABLE " + sqlnb.engines.dialects.DUCKDB.ident(table) + " AS SELECT "
                "i % 2 AS yi, CASE WHEN i % 2 = 0 THEN ? ELSE ? END AS y, "
                "CAST(i % 7 + (i % 2) * 3 AS DOUBLE) AS " + sqlnb.engines.dialects.DUCKDB.ident(column)
                + ", CASE WHEN i = 5 THEN 'nan'::DOUBLE ELSE i % 5 END AS z, "
                "1e9 * (i % 2) + i % 3 AS far, (i * 7) % 3 + i % 2 AS k, "
                "CASE WHEN i % 3 = 0 THEN 'p' ELSE 'q' END AS c, i % 2 = 0 AS flag, i % 2 AS g, "
                "CASE WHEN i % 2 = 0 THEN 'cheap pills now' ELSE 'meeting at noon' END AS body "
                "FROM range(24) r(i)", labels)
    features = [column, "far"]  # far's class sums cancel: scanned again around class means
    model = sqlnb.NaiveBayes(name, con=con).fit(table, "y", features=features)
    for output in (model.predict, model.predict_proba, model.predict_log_proba,
                   model.predict_joint_log_proba):
        output(table).fetchall()
    model.evaluate(table, "y")
    for family, columns, missing in (("gaussian", features, "ignore"),
                                     ("poisson", ["k"], "error"),
                                     ("bernoulli", ["flag", "k"], "ignore")):
        arrays = sqlnb.NaiveBayes(name, con=con, family=family, scoring="arrays",
                                  missing=missing).fit(table, "y", features=columns)
        arrays.predict_proba(table).fetchall()  # parameters as data
        # a small Arrow table: a statement planned once (PREPARE), run on each new table
        rows = con.sql("SELECT * FROM " + sqlnb.engines.dialects.DUCKDB.ident(table)).to_arrow_table()
        arrays.predict_proba(rows).fetchall()
        # a few rows without a missing value: the weight matrix
        arrays.predict_proba(rows.slice(0, 2)).fetchall()
        # more than one vector of rows: whether DuckDB keeps their order is asked
        arrays.predict_proba(pa.concat_tables([rows] * 100)).fetchall()
    # a class the pilot's first rows miss, far from the others: its sums are taken again
    # around its own mean
    late = con.sql("SELECT CASE WHEN i < 2100 THEN 0 ELSE 1 END AS y, CASE WHEN i < 2100 "
                   "THEN CAST(i % 3 AS DOUBLE) ELSE 1e9 + i % 3 END AS "
                   + sqlnb.engines.dialects.DUCKDB.ident(column) + " FROM range(2200) r(i)")
    sqlnb.NaiveBayes(name, con=con).fit(late, "y", features=[column])
    model = sqlnb.NaiveBayes(name, con=con).fit(table, "y", features=features)
    model.top_features(2).fetchall()
    model.explain(table).fetchall()
    model.explain(table, top=1, row=3).fetchall()
    model.drift(table).fetchall()
    model.drift(table, by_class=True, bins=5).fetchall()
    sqlnb.diagnostics.class_priors(model)
    sqlnb.diagnostics.feature_distribution(model, column)
    sqlnb.diagnostics.model_reliability(model, table, "y", bins=3)
    assert [m["model"] for m in sqlnb.list_models(con)] == [name]
    sqlnb.progress.silence_duckdb(con)
    con.execute(model.to_sql(sqlnb.engines.dialects.DUCKDB.ident(table))).fetchall()
    model.fit_sql(table, "y", features=features)
    model.create_macros()
    # macros made after a write without them: their names join the model's record
    bare = sqlnb.NaiveBayes(name + "b", con=con, sql_macros=False).fit(table, "y",
                                                                      features=features)
    bare.create_macros()
    bare.drop()
    model.partial_fit(table, "y", features=features, classes=labels)
    model.forget(table, "y", features=features)
    with pytest.raises(sqlnb.errors.InvalidDataError):  # it would leave no row
        model.forget(table, "y", features=features)
    # the same scan after a rolled-back update: its batch table is made again
    model.partial_fit(table, "y", features=features)
    model.forget(table, "y", features=features)
    # new hyperparameters for the stored model: its per-feature options are refreshed
    sqlnb.NaiveBayes(name, con=con, var_smoothing=1e-3).partial_fit(table, "y",
                                                                    features=features)
    sqlnb.merge(con, [name, "memory." + name], into=name + "w")
    sqlnb.load(con, name).predict(table).fetchall()
    # the rows in a Parquet source's footers ("auto" scoring asks): no such file, no count
    assert sqlnb.engines.source.Source("", {}, paths=["f" + text + ".parquet"],
                               reader="read_parquet").known_rows(con) is None
    model.fit(table, "y", features=features, group_by="g").predict_proba(table).fetchall()
    model.explain(table, top=1).fetchall()  # each row by its group's parameters
    # a per-group model whose meta row has no spec (schema 1): its groups are read from its tables
    con.execute("UPDATE " + sqlnb.engines.dialects.DUCKDB.ident(name + "_meta")
                + " SET spec = NULL, schema_version = 1")
    sqlnb.load(con, name).predict_proba(table).fetchall()
    for family, columns in (("multinomial", ["k"]), ("complement", ["k"]),
                            ("bernoulli", ["flag", "k"]), ("categorical", ["c", "k"]),
                            ("poisson", ["k", "z"])):  # z's NaN: scanned again
        fitted = sqlnb.NaiveBayes(name, con=con, family=family).fit(table, "y", features=columns)
        fitted.predict_proba(table).fetchall()
        fitted.explain(table, top=1).fetchall()
        fitted.drift(table).fetchall()
    gaussian = sqlnb.NaiveBayes(name, con=con).fit(table, "y", features=features, weight="k")
    copy = sqlnb.exchange.restore(con, name, sqlnb.exchange.statistics(gaussian))  # a pickle's
    copy.predict_proba(table).fetchall()
    sqlnb.NaiveBayes(name, con=con).search(  # fold ids from a column, refit
        table, "y", features=features, weight="k", cv="k", scoring=["accuracy", "f1_macro"],
        param_grid={"var_smoothing": [1e-9, 0.1]})
    infinite = con.sql("SELECT * REPLACE (CASE WHEN yi = 1 THEN 'inf'::DOUBLE ELSE "
                       + sqlnb.engines.dialects.DUCKDB.ident(column) + " END AS "
                       + sqlnb.engines.dialects.DUCKDB.ident(column) + ") FROM "
                       + sqlnb.engines.dialects.DUCKDB.ident(table))
    with pytest.raises(sqlnb.errors.InvalidDataError, match="infinite value"):
        sqlnb.NaiveBayes(name + "f", con=con).fit(infinite, "y", features=features)
    sqlnb.NaiveBayes(name, con=con, family="categorical").search(  # hashed folds
        table, "y", features=["c", "k"], cv=2, param_grid={"alpha": [1.0]}, refit=False)
    sqlnb.NaiveBayes(name, con=con, family="poisson").search(
        table, "y", features=["k"], cv=2, param_grid={"alpha": [1.0]}, refit=False)
    categorical = sqlnb.NaiveBayes(name, con=con, family="categorical")
    categorical.fit(table, "y", features=["c", "k"])
    as_float = con.sql("SELECT * REPLACE (CAST(k AS DOUBLE) AS k) FROM "
                       + sqlnb.engines.dialects.DUCKDB.ident(table))
    with pytest.warns(sqlnb.errors.CoercedValuesWarning):  # k is checked by value
        categorical.predict(as_float).fetchall()
    sqlnb.NaiveBayes(name, con=con, family="auto").fit(
        table, "y", features=[column, "c", "flag", "k"]).predict_proba(table).fetchall()
    # a wide Gaussian part, scored in a level of its own beside the categorical part
    wide = con.sql("SELECT *, " + ", ".join(
        f"{sqlnb.engines.dialects.DUCKDB.ident(column)} + {i} AS {sqlnb.engines.dialects.DUCKDB.ident(column + str(i))}"
        for i in range(60)) + " FROM " + sqlnb.engines.dialects.DUCKDB.ident(table))
    sqlnb.NaiveBayes(name, con=con, family="auto").fit(
        wide, "y", features=[column + str(i) for i in range(60)] + ["c"]
    ).predict_proba(wide).fetchall()
    # a feature of more categories than a statement names: joined from the parameter view,
    # and read back for to_sql
    many = con.sql("SELECT 'v' || i AS " + sqlnb.engines.dialects.DUCKDB.ident(column)
                   + ", i % 2 AS y FROM range(" + str(sqlnb.compiler.INLINE_MAX_CATEGORIES + 5)
                   + ") r(i)")
    by_view = sqlnb.NaiveBayes(name, con=con, family="categorical").fit(many, "y",
                                                                       features=[column])
    by_view.predict_proba(many).fetchall()
    by_view.explain(many, top=1).fetchall()
    con.execute(by_view.to_sql(sqlnb.engines.dialects.DUCKDB.ident(table))).fetchall()
    text_model = sqlnb.NaiveBayes(name, con=con, family="multinomial")
    text_model.fit(table, "y", text="body", tfidf=True)
    text_model.partial_fit(table, "y", text="body")
    sqlnb.merge(con, [name, name], into=name + "t")  # the same vocabulary (idf)
    text_model.predict_proba(table).fetchall()
    sqlnb.text.top_terms(text_model, 2).fetchall()
    text_model.explain(table).fetchall()
    text_model.explain(table, top=2).fetchall()
    text_model.drift(table).fetchall()
    text_model.fit(table, "y", text="body")
    text_model.partial_fit(table, "y", text="body")
    text_model.forget(table, "y", text="body")
    sqlnb.merge(con, [name, text_model], into=name + "t")  # vocabularies unioned
    grouped_text = sqlnb.NaiveBayes(name + "g", con=con, family="multinomial")
    grouped_text.fit(table, "y", text="body", group_by="g")  # a vocabulary per group
    grouped_text.predict_proba(table).fetchall()
    grouped_text.partial_fit(table, "y", text="body", group_by="g")
    grouped_text.forget(table, "y", text="body", group_by="g")
    sqlnb.merge(con, [name + "g", name + "g"], into=name + "gm")
    quoted = sqlnb.engines.dialects.DUCKDB.ident
    con.execute(text_model.to_sql(quoted(table), output="proba")).fetchall()
    con.execute(f"SELECT {quoted(name + '_predict_proba')}(r) FROM {quoted(table)} r").fetchall()
    con.execute(text_model.to_sql(quoted(table), output="explain", top=2)).fetchall()
    call = f"SELECT * FROM {quoted(name + '_explain')}(?)"
    expected = sorted(text_model.explain(table).fetchall())
    if duckdb.__version__.startswith("1.") and '"' in table:
        # DuckDB 1.5's query_table does not read the "" escape of a quoted name
        # (docs/architecture.md, "DuckDB versions"): a name holding a double quote is not found
        with pytest.raises(duckdb.CatalogException):
            con.execute(call, [quoted(table)])
    else:
        assert sorted(con.execute(call, [quoted(table)]).fetchall()) == expected
    sqlnb.NaiveBayes(name, con=con, family="bernoulli").search(  # each fold's vocabulary
        table, "y", text="body", cv="k", scoring=["accuracy", "neg_log_loss"],
        param_grid={"alpha": [0.5, 1.0], "max_features": [None, 2]}, refit=False)
    with tempfile.TemporaryDirectory() as scratch:  # a hostile path, and model name
        folder = text_model.export(Path(scratch) / ("p" + text))
        moved = sqlnb.import_model(con, folder, name=name + "i")
    moved.predict_proba(table).fetchall()
    moved.drop()
    # what an export from Spark runs on its private DuckDB copy: the recorded type names
    # spelt as DuckDB's (a hostile table name and hostile type names)
    typed = "ty" + text
    con.execute("CREATE TABLE " + quoted(typed) + " AS SELECT 'STRING' AS type")
    con.execute(sqlnb.templates.render("exchange/portable_types.sql", table=quoted(typed),
                                       types=[("STRING", "VARCHAR"), (text, "b" + text)],
                                       model=name))
    assert con.execute("SELECT type FROM " + quoted(typed)).fetchall() == [("VARCHAR",)]
    con.execute("CREATE TABLE " + sqlnb.engines.dialects.DUCKDB.ident("e" + text) + " AS SELECT i AS row, "
                "i % 3 AS feature_index, CAST(1 + i % 2 AS DOUBLE) AS value FROM range(24) r(i)")
    sparse = sqlnb.NaiveBayes(name, con=con, family="multinomial")
    sparse.fit_sparse("e" + text, _rows(con, table, text), "y", features=["f0", "f1", "f2"])
    sparse.score_sparse("e" + text, "r" + text, "proba").fetchall()
    sqlnb.NaiveBayes(name, con=con, family="multinomial").fit_long(
        "e" + text, "y", labels="r" + text, document="row", feature="feature_index")
    sqlnb.load(con, name).drop()
    # the statements of Spark's versioned writes, rendered (not run) with DuckDB's quoting
    quote = sqlnb.engines.dialects.DUCKDB.ident
    for what in ("columns", "switch", "drop"):
        sqlnb.templates.render(f"catalog/versions.sql#{what}", dialect=sqlnb.engines.dialects.DUCKDB,
                               view=quote(name), table=quote(name + "__v1"))
    GaussianNB().fit([[0.0], [1.0], [0.5], [1.5]], [0, 1, 0, 1])  # its own private names


def _rows(con: duckdb.DuckDBPyConnection, table: str, text: str) -> str:
    rows = "r" + text
    con.execute("CREATE TABLE " + sqlnb.engines.dialects.DUCKDB.ident(rows) + " AS SELECT "
                "row_number() OVER () - 1 AS row, y FROM " + sqlnb.engines.dialects.DUCKDB.ident(table))
    return rows


def _rendered(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[list[tuple[str, str]], set]:
    """The statements the workflow renders (template name, SQL) and every template loaded."""
    rendered: list[tuple[str, str]] = []
    loaded: set[str] = set()
    original_render = jinja2.Template.render
    original_source = jinja2.FileSystemLoader.get_source
    original_macro = sqlnb.templates.call_macro

    def render(self, *args, **kwargs):
        out = original_render(self, *args, **kwargs)
        rendered.append((self.name, out))
        return out

    def call_macro(loaded, name, context):  # a statement written by a macro of a file
        out = original_macro(loaded, name, context)
        rendered.append((f"{loaded.name}#{name}", out))
        return out

    def get_source(self, environment, name):
        loaded.add(name)
        return original_source(self, environment, name)

    with monkeypatch.context() as patch:
        patch.setattr(jinja2.Template, "render", render)
        patch.setattr(sqlnb.templates, "call_macro", call_macro)
        patch.setattr(jinja2.FileSystemLoader, "get_source", get_source)
        # every statement rendered, none taken from the texts render_repeated remembers:
        # which texts repeat depends on names that hold object ids (an input's registered
        # view), so the two runs would not render the same list
        patch.setattr(sqlnb.engines.base, "render_repeated",
                      lambda template, dialect=sqlnb.engines.dialects.DUCKDB, **context:
                      sqlnb.templates.render(template, dialect, **context))
        sqlnb.templates.environment.cache_clear()  # load every template afresh
        con = duckdb.connect()
        con.execute("CREATE TABLE users AS SELECT 42 AS id")
        _workflow(con, text)
        assert con.execute("SELECT id FROM users").fetchall() == [(42,)]
        con.close()
    sqlnb.templates.environment.cache_clear()
    return rendered, loaded


def _shape(node):
    """A parse tree with its names and values blanked: what the statement does."""
    if isinstance(node, dict):
        return {key: _shape(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_shape(value) for value in node]
    return type(node).__name__


def _statements(con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple]:
    """Per statement: its type, its token types, and for a SELECT its parse tree's shape."""
    out = []
    for statement in con.extract_statements(sql):
        tokens = [kind for _, kind in duckdb.tokenize(statement.query)]
        tree = None
        if statement.type == duckdb.StatementType.SELECT:
            tree = json.loads(con.execute("SELECT json_serialize_sql(?)",
                                          [statement.query]).fetchall()[0][0])
            assert not tree.get("error"), tree
            tree = _shape(tree)
        out.append((statement.type, tokens, tree))
    return out


def test_every_template_keeps_its_parse_tree_with_hostile_names(monkeypatch):
    benign, loaded = _rendered(monkeypatch, "")
    hostile, _ = _rendered(monkeypatch, HOSTILE)
    every_template = {str(p.relative_to(template_dir())) for p in template_dir().rglob("*.sql")}
    # Spark SQL's spellings and scoring functions, rendered with hostile names in
    # tests/test_spark.py and tests/test_spark_functions.py
    every_template -= {"dialects/spark.sql", "score/scoring_functions.sql"}
    assert sorted(every_template - loaded) == [], sorted(every_template - loaded)
    assert [name for name, _ in hostile] == [name for name, _ in benign]
    con = duckdb.connect()
    for (name, benign_sql), (_, hostile_sql) in zip(benign, hostile):
        try:
            expected = _statements(con, benign_sql)
        except duckdb.ParserException:  # a fragment (source.sql): a relation to select from
            benign_sql, hostile_sql = "FROM " + benign_sql, "FROM " + hostile_sql
            expected = _statements(con, benign_sql)
        assert _statements(con, hostile_sql) == expected, name


def test_comment_filter_leaves_no_line_break_and_no_block_delimiter():
    text = sqlnb.engines.dialects.DUCKDB.comment("a" + HOSTILE + "*/*/")
    assert text.splitlines() == [text]
    assert "*/" not in text and "/*" not in text
    con = duckdb.connect()
    assert con.execute("SELECT 1 -- " + text + "\n").fetchall() == [(1,)]
    assert con.execute("SELECT 1 /* " + text + " */").fetchall() == [(1,)]


HOSTILE_NAME = "x\nDROP TABLE users; --"


@pytest.fixture
def users():
    con = duckdb.connect()
    con.execute("CREATE TABLE users AS SELECT 42 AS id")
    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i % 2 * 10 + i % 3 AS DOUBLE) AS v "
                "FROM range(10) r(i)")
    yield con
    assert con.execute("SELECT id FROM users").fetchall() == [(42,)]
    con.close()


def test_load_of_a_hostile_name_drops_nothing(users):
    with pytest.raises(sqlnb.errors.ModelNotFoundError):
        sqlnb.load(users, HOSTILE_NAME)


def test_fit_predict_fit_sql_and_drop_of_a_hostile_name_drop_nothing(users):
    model = sqlnb.NaiveBayes(HOSTILE_NAME, con=users).fit("t", "y")
    assert model.predict("t").fetchall() == [(i % 2, i % 2 * 10.0 + i % 3, i % 2)
                                             for i in range(10)]
    assert "DROP TABLE users" in model.fit_sql("t", "y")  # in a comment, on one line
    sqlnb.load(users, HOSTILE_NAME).drop()


def test_predict_on_a_table_with_a_hostile_name_drops_nothing(users):
    model = sqlnb.NaiveBayes("m", con=users).fit("t", "y")
    users.execute('CREATE TABLE "t\nDROP TABLE users; --" AS SELECT * FROM t')
    assert len(model.predict("t\nDROP TABLE users; --").fetchall()) == 10


def test_predict_on_a_parquet_file_with_a_hostile_name_drops_nothing(users, tmp_path: Path):
    model = sqlnb.NaiveBayes("m", con=users).fit("t", "y")
    path = tmp_path / "t\nDROP TABLE users; --.parquet"
    users.execute("COPY t TO " + sqlnb.engines.dialects.DUCKDB.lit(str(path)) + " (FORMAT parquet)")
    assert len(model.predict(str(path)).fetchall()) == 10
