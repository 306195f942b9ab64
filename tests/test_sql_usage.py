"""Models usable from plain SQL: scoring macros, standalone scoring SQL, fit scripts."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from sklearn.naive_bayes import MultinomialNB
from sql_usage_data import FAMILIES, family_frame

import sqlnb
from sqlnb.errors import InvalidDataError, InvalidParameterError

LABELS = ["churn", "stay", "wait"]


def fitted(family: str, con=None, name: str = "churn", n: int = 240):
    con = duckdb.connect() if con is None else con
    frame = family_frame(family, n=n)  # noqa: F841 (read by DuckDB)
    con.execute("CREATE OR REPLACE TABLE customers AS SELECT * FROM frame")
    model = sqlnb.NaiveBayes(name, con=con, family=family).fit("customers", "y")
    return con, model


def facade_scores(model, source="customers"):
    labels = [r[-1] for r in model.predict(source).fetchall()]
    proba = np.array([r[-3:] for r in model.predict_proba(source).fetchall()])
    return labels, proba


def macro_scores(con, name="churn", source="customers"):
    rows = con.execute(
        f'SELECT "{name}_predict"(t), "{name}_predict_proba"(t) FROM {source} AS t'
    ).fetchall()
    labels = [r[0] for r in rows]
    proba = np.array([[r[1][label] for label in LABELS] for r in rows])
    return labels, proba


# ---------------------------------------------------------------- persisted macros
@pytest.mark.parametrize("family", FAMILIES)
def test_macros_agree_with_the_facade(family):
    con, model = fitted(family)
    labels, proba = facade_scores(model)
    macro_labels, macro_proba = macro_scores(con)
    assert macro_labels == labels
    np.testing.assert_allclose(macro_proba, proba, rtol=0, atol=1e-12)
    # the label type is the target's, and the probabilities are a distribution
    assert isinstance(macro_labels[0], str)
    np.testing.assert_allclose(macro_proba.sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("family", FAMILIES)
def test_macros_follow_every_fit(family):
    """A refit (and a partial fit, where sqlnb has one) re-creates the macros."""
    con, model = fitted(family)
    before = macro_scores(con)
    frame = family_frame(family, n=300, seed=7)  # noqa: F841 (read by DuckDB)
    con.execute("CREATE TABLE more AS SELECT * FROM frame")
    model.fit("more", "y")
    labels, proba = facade_scores(model)
    macro_labels, macro_proba = macro_scores(con)
    assert macro_labels == labels
    np.testing.assert_allclose(macro_proba, proba, rtol=0, atol=1e-12)
    assert not np.allclose(macro_proba, before[1])
    if hasattr(model, "partial_fit"):
        model.partial_fit("customers", "y")
        labels, proba = facade_scores(model)
        macro_labels, macro_proba = macro_scores(con)
        assert macro_labels == labels
        np.testing.assert_allclose(macro_proba, proba, rtol=0, atol=1e-12)


def test_macros_score_files_and_whole_tables(tmp_path):
    con, model = fitted("gaussian")
    path = tmp_path / "new.parquet"
    con.execute(f"COPY customers TO '{path}' (FORMAT parquet)")
    from_file = con.execute(f"SELECT churn_predict(p) FROM read_parquet('{path}') AS p").fetchall()
    labels, _ = facade_scores(model)
    assert [r[0] for r in from_file] == labels
    table = con.execute("SELECT * FROM churn_score('customers')").fetchall()
    assert [r[-1] for r in table] == labels
    assert len(table[0]) == len(model.predict("customers").columns)


def test_a_failed_fit_leaves_the_macros_as_they_were():
    con, model = fitted("multinomial")
    before = macro_scores(con)
    con.execute("CREATE TABLE bad AS SELECT * FROM customers")
    con.execute("UPDATE bad SET x1 = -1 WHERE y = 'stay'")
    with pytest.raises(InvalidDataError):
        model.fit("bad", "y")
    after = macro_scores(con)
    assert after[0] == before[0]
    np.testing.assert_array_equal(after[1], before[1])


def test_drop_removes_the_macros():
    con, model = fitted("bernoulli")
    model.drop()
    functions = con.execute(
        "SELECT function_name FROM duckdb_functions() WHERE function_name LIKE 'churn%'"
    ).fetchall()
    assert functions == []


def test_macros_can_be_turned_off():
    con = duckdb.connect()
    sqlnb.NaiveBayes("quiet", con=con, sql_macros=False).fit(family_frame("gaussian"), "y")
    assert con.execute(
        "SELECT count(*) FROM duckdb_functions() WHERE function_name LIKE 'quiet%'"
    ).fetchall()[0][0] == 0


def test_a_separate_process_scores_with_duckdb_alone(tmp_path):
    """The database file alone, opened by a process that imports only duckdb."""
    path = tmp_path / "models.duckdb"
    con = duckdb.connect(str(path))
    expected = {}
    for family in FAMILIES:  # one model per family in the same file
        con.execute(f"CREATE SCHEMA {family}")
        con.execute(f"USE {family}")
        _, model = fitted(family, con=con)
        expected[family] = facade_scores(model)
    con.close()
    script = textwrap.dedent(f"""
        import json, sys
        import duckdb
        con = duckdb.connect({str(path)!r}, read_only=True)
        scores = {{}}
        for family in {FAMILIES!r}:
            con.execute(f"USE {{family}}")
            rows = con.execute(
                "SELECT churn_predict(t), churn_predict_proba(t) FROM customers AS t"
            ).fetchall()
            scores[family] = [[label, proba] for label, proba in rows]
        assert "sqlnb" not in sys.modules
        print(json.dumps(scores))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, check=True)
    scores = json.loads(done.stdout)
    for family, (labels, proba) in expected.items():
        rows = scores[family]
        assert [r[0] for r in rows] == labels, family
        other = np.array([[r[1][label] for label in LABELS] for r in rows])
        np.testing.assert_allclose(other, proba, rtol=0, atol=1e-12, err_msg=family)


# ---------------------------------------------------------------- standalone scoring SQL
@pytest.mark.parametrize("family", FAMILIES)
def test_to_sql_runs_on_a_fresh_connection(family):
    con, model = fitted(family)
    labels, proba = facade_scores(model)
    fresh = duckdb.connect()
    frame = con.execute("SELECT * FROM customers").df()
    fresh.execute("CREATE TABLE incoming AS SELECT * FROM frame")
    sql = model.to_sql("incoming", output="predict_proba")
    result = fresh.execute(sql)
    columns = [d[0] for d in result.description]
    rows = result.fetchall()
    assert columns == list(frame.columns) + ["prediction", "proba_churn", "proba_stay",
                                             "proba_wait"]
    assert [r[-4] for r in rows] == labels
    np.testing.assert_allclose(np.array([r[-3:] for r in rows]), proba, rtol=0, atol=1e-12)
    assert "sqlnb" not in fresh.execute(
        "SELECT string_agg(table_name) FROM duckdb_tables()").fetchall()[0][0]


def test_to_sql_is_commented_and_reads_files(tmp_path):
    con, model = fitted("gaussian")
    path = tmp_path / "new.parquet"
    con.execute(f"COPY customers TO '{path}' (FORMAT parquet)")
    sql = model.to_sql(f"read_parquet('{path}')")
    header = sql.splitlines()[0]
    assert "churn" in header and "gaussian" in header
    assert str(model.meta["fitted_at"])[:19] in sql
    rows = duckdb.connect().execute(sql).fetchall()
    assert [r[-1] for r in rows] == facade_scores(model)[0]


@pytest.mark.parametrize("query", [
    "SELECT * FROM customers",
    "  with c AS (SELECT * FROM customers) SELECT * FROM c;  ",
    "FROM customers -- every row",
])
def test_to_sql_takes_a_bare_query_as_its_source(query):
    con, model = fitted("gaussian")
    rows = con.execute(model.to_sql(query)).fetchall()
    assert [r[-1] for r in rows] == facade_scores(model)[0]


def test_to_sql_rejects_an_unknown_output():
    _, model = fitted("gaussian")
    with pytest.raises(InvalidParameterError):
        model.to_sql("customers", output="everything")


# ---------------------------------------------------------------- fitting from SQL
def _model_tables(con, name="churn"):
    tables = {}
    for role, order in [("class_stats", "class"), ("feature_stats", "ALL"),
                        ("class_params", "class"), ("feature_params", "ALL"),
                        ("features", "feature_index")]:
        tables[role] = con.execute(f'SELECT * FROM "{name}_{role}" ORDER BY {order}').fetchall()
    meta = con.execute(f'SELECT * EXCLUDE (fitted_at) FROM "{name}_meta"').fetchall()
    return tables, meta


@pytest.mark.parametrize("family", FAMILIES)
def test_the_fit_script_builds_the_same_tables(family):
    con, model = fitted(family)
    expected = _model_tables(con)
    script = model.fit_sql("customers", "y")
    assert script.splitlines()[0].startswith("-- Fit model churn")
    plain = duckdb.connect()
    frame = con.execute("SELECT * FROM customers").df()  # noqa: F841 (read by DuckDB)
    plain.execute("CREATE TABLE customers AS SELECT * FROM frame")
    plain.execute(script)
    got = _model_tables(plain)
    # the script's model has no macros, and its record of what it owns names none
    assert "churn_predict" not in plain.execute("SELECT relations FROM churn_meta").fetchone()[0]
    # the macros come from Python, once, and then agree with the facade; the model owns
    # them from then on (its metadata row is then the model's fitted with macros)
    sqlnb.load(plain, "churn").create_macros()
    assert _model_tables(plain)[1] == expected[1]
    labels, proba = facade_scores(model)
    assert macro_scores(plain)[0] == labels
    np.testing.assert_allclose(macro_scores(plain)[1], proba, rtol=0, atol=1e-12)
    for role, rows in expected[0].items():
        assert len(got[0][role]) == len(rows), role
        for a, b in zip(got[0][role], rows):
            assert a[:2] == b[:2]
            np.testing.assert_allclose(
                [v for v in a if isinstance(v, float)], [v for v in b if isinstance(v, float)],
                rtol=1e-12, atol=1e-12, err_msg=role)


def test_the_fit_script_drops_stale_macros():
    con, model = fitted("gaussian")
    con.execute(model.fit_sql("customers", "y"))
    assert con.execute("SELECT count(*) FROM duckdb_functions() "
                       "WHERE function_name LIKE 'churn%'").fetchall()[0][0] == 0


def test_recording_a_fit_changes_nothing():
    con = duckdb.connect()
    frame = family_frame("gaussian")
    con.execute("CREATE TABLE customers AS SELECT * FROM frame")
    model = sqlnb.NaiveBayes("churn", con=con)
    model.fit_sql("customers", "y", features=["x0", "x1"])
    tables = con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
    assert tables == [("customers",)]
    with pytest.raises(InvalidParameterError):
        model.fit_sql(frame, "y")


@pytest.mark.parametrize("family", ["multinomial", "gaussian"])
def test_wide_models_macros_and_standalone_sql(family):
    """Past 100 features the sums are chunked, past 400 references the row is named once."""
    rng = np.random.default_rng(5)
    n, width = 200, 150
    y = rng.integers(0, 3, n)
    counts = rng.poisson(0.5 + (y[:, None] == (np.arange(width) % 3)), (n, width))
    columns = ", ".join(f"c.x[{i + 1}] AS \"f {i}\"" for i in range(width))
    con = duckdb.connect()
    con.execute("CREATE TABLE wide_raw AS SELECT * FROM (SELECT unnest(?) AS x, unnest(?) AS y)",
                [counts.tolist(), y.tolist()])
    con.execute(f"CREATE TABLE wide AS SELECT y, {columns} FROM wide_raw AS c")
    model = sqlnb.NaiveBayes("wide", con=con, family=family).fit("wide", "y")
    labels = [r[-1] for r in model.predict("wide").fetchall()]
    proba = np.array([r[-3:] for r in model.predict_proba("wide").fetchall()])
    rows = con.execute("SELECT wide_predict(t), wide_predict_proba(t) FROM wide t").fetchall()
    assert [r[0] for r in rows] == labels
    np.testing.assert_allclose([[r[1][k] for k in ("0", "1", "2")] for r in rows], proba,
                               rtol=0, atol=1e-12)
    standalone = con.execute(model.to_sql("wide", output="predict_proba")).fetchall()
    assert [r[-4] for r in standalone] == labels
    np.testing.assert_allclose([r[-3:] for r in standalone], proba, rtol=0, atol=1e-12)


def test_predict_handles_more_features_than_duckdbs_expression_depth():
    """1,010 terms in one chain would exceed DuckDB's depth limit of 1,000: sums are chunked."""
    rng = np.random.default_rng(2)
    X = rng.poisson(0.4, (30, 1010))
    y = rng.integers(0, 2, 30)
    model = sqlnb.NaiveBayes("wide", family="multinomial", sql_macros=False)
    table = pa.table({**{f"f{i}": X[:, i] for i in range(X.shape[1])}, "y": y})
    model.fit(table, "y")
    predicted = [r[-1] for r in model.predict(table).fetchall()]
    assert predicted == MultinomialNB().fit(X, y).predict(X).tolist()
