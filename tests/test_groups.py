"""Per-group models: one scan, one model per group, routed scoring, pooled fallback."""

from __future__ import annotations

import json
import subprocess
import sys

import duckdb
import numpy as np
import pytest
from sql_usage_data import FAMILIES, family_frame

import sqlnb
from sqlnb.errors import InvalidParameterError, UnknownColumnError

LABELS = ["churn", "stay", "wait"]
FEATURES = ["x0", "x1", "odd name"]


def _data(family, con, n=400):
    frame = family_frame(family, n=n)
    rng = np.random.default_rng(1)
    frame["store"] = rng.integers(0, 3, n)
    frame["region"] = np.where(rng.random(n) < 0.5, "north", "south")
    # store 2 never sees 'wait': its model has two classes
    frame.loc[frame["store"] == 2, "y"] = frame.loc[frame["store"] == 2, "y"].replace(
        "wait", "stay")
    con.execute("CREATE OR REPLACE TABLE sales AS SELECT * FROM frame")
    return frame  # no column is a row id: scored relations are compared in one order


def _proba(relation):
    rows = relation.fetchall()
    return [r[-4] for r in rows], np.array([r[-3:] for r in rows])


def _absolute(con, model, query):
    """The rows of a statistics query, a Gaussian n_mean plus its feature's origin."""
    rows = con.execute(query)
    names = [d[0] for d in rows.description]
    origin = {f["name"]: f.get("origin", 0.0) for f in model.meta["features"]}
    if "n_mean" not in names:
        return rows.fetchall()
    at, feature = names.index("n_mean"), names.index("feature")
    return [tuple(v + origin[r[feature]] if i == at else v for i, v in enumerate(r))
            for r in rows.fetchall()]


@pytest.mark.parametrize("family", FAMILIES)
def test_each_group_matches_a_separate_fit(family):
    con = duckdb.connect()
    _data(family, con)
    model = sqlnb.NaiveBayes("stores", con=con, family=family)
    model.fit("sales", "y", features=FEATURES, group_by="store")
    scored = con.sql("SELECT * FROM sales ORDER BY ALL")
    proba = np.array([r[-3:] for r in model.predict_proba(scored).fetchall()])
    labels = [r[-1] for r in model.predict(scored).fetchall()]
    stores = [r["store"] for r in scored.df().to_dict("records")]
    for store in range(3):
        alone = con.sql(f"SELECT * FROM sales WHERE store = {store} ORDER BY ALL")
        separate = sqlnb.NaiveBayes(f"store{store}", con=con, family=family)
        separate.fit(alone, "y", features=FEATURES)
        rows = [i for i, s in enumerate(stores) if s == store]
        expected = separate.predict_proba(alone).fetchall()
        columns = [LABELS.index(label) for label in separate.classes_]
        np.testing.assert_allclose(proba[rows][:, columns], np.array([r[-len(columns):]
                                   for r in expected]), rtol=0, atol=1e-9)
        assert [labels[i] for i in rows] == [r[-1] for r in separate.predict(alone).fetchall()]
        missing = [i for i, label in enumerate(LABELS) if label not in separate.classes_]
        assert np.all(proba[rows][:, missing] == 0)
        # the group's statistics are the separate model's (Gaussian class means n_mean are
        # stored relative to each model's origin: compared as absolute values)
        mine = _absolute(con, model, "SELECT * EXCLUDE (store) FROM stores_group_feature_stats "
                         f"WHERE store = {store} ORDER BY ALL")
        theirs = _absolute(con, separate, f"SELECT * FROM store{store}_feature_stats ORDER BY ALL")
        assert len(mine) == len(theirs)
        for a, b in zip(mine, theirs):
            np.testing.assert_allclose([v for v in a if isinstance(v, float)],
                                       [v for v in b if isinstance(v, float)], rtol=1e-12)


def test_unseen_and_null_groups_use_the_pooled_model():
    con = duckdb.connect()
    _data("gaussian", con)
    con.execute("UPDATE sales SET store = NULL WHERE x0 > 2.5")  # only in the pooled model
    model = sqlnb.NaiveBayes("stores", con=con).fit("sales", "y", features=FEATURES,
                                                     group_by="store")
    pooled = sqlnb.NaiveBayes("pooled", con=con).fit("sales", "y", features=FEATURES)
    new = con.sql("SELECT * REPLACE (CASE WHEN x1 > 0 THEN 99 ELSE NULL END AS store) "
                  "FROM sales ORDER BY ALL")
    np.testing.assert_allclose(_proba(model.predict_proba(new))[1],
                               _proba(pooled.predict_proba(new))[1], rtol=0, atol=1e-12)
    assert con.execute("SELECT count(*) FROM stores_group_class_stats "
                       "WHERE store IS NULL").fetchall()[0][0] == 0


def test_several_group_columns():
    con = duckdb.connect()
    _data("multinomial", con)
    model = sqlnb.NaiveBayes("cells", con=con, family="multinomial")
    model.fit("sales", "y", features=FEATURES, group_by=["store", "region"])
    assert con.execute("SELECT count(DISTINCT (store, region)) "
                       "FROM cells_group_class_stats").fetchall()[0][0] == 6
    alone = con.sql("SELECT * FROM sales WHERE store = 1 AND region = 'south' ORDER BY ALL")
    separate = sqlnb.NaiveBayes("one", con=con, family="multinomial").fit(
        alone, "y", features=FEATURES)
    mine = model.predict_proba(con.sql(
        "SELECT * FROM sales WHERE store = 1 AND region = 'south' ORDER BY ALL"))
    np.testing.assert_allclose(_proba(mine)[1], _proba(separate.predict_proba(alone))[1],
                               rtol=0, atol=1e-12)


def test_macros_and_standalone_sql_route_groups(tmp_path):
    con = duckdb.connect(str(tmp_path / "m.duckdb"))
    _data("categorical", con)
    model = sqlnb.NaiveBayes("stores", con=con, family="categorical")
    model.fit("sales", "y", features=["x0", "x1", "x2", "odd name"], group_by="store")
    con.execute("UPDATE sales SET store = 5 WHERE x0 = 1")  # a store unseen at fit
    _, proba = _proba(model.predict_proba("sales"))
    expected_labels = [r[-1] for r in model.predict("sales").fetchall()]
    rows = con.execute("SELECT stores_predict(t), stores_predict_proba(t) FROM sales t").fetchall()
    assert [r[0] for r in rows] == expected_labels
    np.testing.assert_allclose([[r[1][k] for k in LABELS] for r in rows], proba, atol=1e-12)
    standalone = duckdb.connect()
    frame = con.execute("SELECT * FROM sales").df()  # noqa: F841 (read by DuckDB)
    standalone.execute("CREATE TABLE sales AS SELECT * FROM frame")
    got = standalone.execute(model.to_sql("sales", output="predict_proba")).fetchall()
    assert [r[-4] for r in got] == expected_labels
    np.testing.assert_allclose([r[-3:] for r in got], proba, rtol=0, atol=1e-12)


def test_the_fit_script_builds_the_group_tables():
    con = duckdb.connect()
    frame = _data("bernoulli", con)  # noqa: F841 (read by DuckDB)
    model = sqlnb.NaiveBayes("stores", con=con, family="bernoulli")
    model.fit("sales", "y", features=FEATURES, group_by="store")
    script = model.fit_sql("sales", "y", features=FEATURES, group_by="store")
    plain = duckdb.connect()
    plain.execute("CREATE TABLE sales AS SELECT * FROM frame")
    plain.execute(script)
    for relation in ("group_class_params", "group_feature_params", "feature_params"):
        query = f"SELECT * FROM stores_{relation} ORDER BY ALL"
        assert plain.execute(query).fetchall() == con.execute(query).fetchall()


def test_an_ordinary_refit_removes_the_groups():
    con = duckdb.connect()
    _data("gaussian", con)
    model = sqlnb.NaiveBayes("stores", con=con)
    model.fit("sales", "y", features=FEATURES, group_by="store")
    model.fit("sales", "y", features=["x0", "x1"])
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert not any("group" in name for name in tables)
    labels = [r[-1] for r in model.predict("sales").fetchall()]
    assert labels == [r[0] for r in con.execute(
        "SELECT stores_predict(t) FROM sales t").fetchall()]


@pytest.mark.parametrize("group_by, error", [
    ("nowhere", UnknownColumnError),
    ("y", InvalidParameterError),
    ([], InvalidParameterError),
])
def test_bad_group_columns_are_refused(group_by, error):
    con = duckdb.connect()
    _data("gaussian", con)
    with pytest.raises(error):
        sqlnb.NaiveBayes("stores", con=con).fit("sales", "y", features=FEATURES,
                                                 group_by=group_by)
    assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchall()[0][0] == 1


def test_a_group_column_named_like_a_statistic_is_refused():
    con = duckdb.connect()
    _data("gaussian", con)
    con.execute('ALTER TABLE sales RENAME store TO "class"')
    with pytest.raises(InvalidParameterError):
        sqlnb.NaiveBayes("stores", con=con).fit("sales", "y", features=FEATURES,
                                                 group_by="class")


def test_a_separate_process_scores_groups_with_duckdb_alone(tmp_path):
    path = tmp_path / "stores.duckdb"
    con = duckdb.connect(str(path))
    _data("complement", con)
    model = sqlnb.NaiveBayes("stores", con=con, family="complement")
    model.fit("sales", "y", features=FEATURES, group_by="store")
    con.execute("UPDATE sales SET store = 9 WHERE x0 = 0")  # unseen at fit: pooled model
    labels = [r[-1] for r in model.predict("sales").fetchall()]
    con.close()
    script = (
        "import json, sys, duckdb\n"
        f"con = duckdb.connect({str(path)!r}, read_only=True)\n"
        "rows = con.execute('SELECT stores_predict(t) FROM sales AS t').fetchall()\n"
        "assert 'sqlnb' not in sys.modules\n"
        "print(json.dumps([r[0] for r in rows]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, check=True)
    assert json.loads(done.stdout) == labels


@pytest.mark.parametrize("family", ["gaussian", "categorical"])
def test_weighted_groups_reloaded_and_evaluated(family):
    con = duckdb.connect()
    frame = _data(family, con)
    con.execute("ALTER TABLE sales ADD COLUMN w DOUBLE")
    con.execute("UPDATE sales SET w = 0.5 + abs(x1 % 3)")  # weights are >= 0
    sqlnb.NaiveBayes("stores", con=con, family=family).fit(
        "sales", "y", features=FEATURES, weight="w", group_by="store")
    model = sqlnb.load(con, "stores")
    alone = con.sql("SELECT * FROM sales WHERE store = 0 ORDER BY ALL")
    separate = sqlnb.NaiveBayes("one", con=con, family=family).fit(
        alone, "y", features=FEATURES, weight="w")
    np.testing.assert_allclose(_proba(model.predict_proba(alone))[1],
                               _proba(separate.predict_proba(alone))[1], rtol=0, atol=1e-12)
    predicted = [r[-1] for r in model.predict("sales").fetchall()]
    expected = np.mean(np.array(predicted) == con.execute("SELECT y FROM sales").df()["y"])
    assert model.evaluate("sales")["accuracy"] == pytest.approx(expected, abs=1e-12)
    assert len(frame) == model.evaluate("sales")["n"]


def test_drop_removes_the_group_tables_and_macros():
    con = duckdb.connect()
    _data("multinomial", con)
    model = sqlnb.NaiveBayes("stores", con=con, family="multinomial")
    model.fit("sales", "y", features=FEATURES, group_by="store")
    model.drop()
    tables = con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
    views = con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
    macros = con.execute("SELECT function_name FROM duckdb_functions() "
                         "WHERE function_name LIKE 'stores%'").fetchall()
    assert (tables, views, macros) == ([("sales",)], [], [])
