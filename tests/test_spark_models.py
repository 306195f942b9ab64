"""Models that live on Spark: fit, predict and the versioned statistics tables.

The oracles: the same model fitted in DuckDB (statistics within 1e-10 relative: the engines
sum in different orders) and scikit-learn (predictions identical, probabilities within
1e-9). Every Spark test shares one local session (the ``spark`` fixture of conftest.py);
each fits a tiny table.
"""

from __future__ import annotations

import json

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB

import sqlnb
from sqlnb.engines.base import DUCKDB_ONLY
from sqlnb.engines.spark import SparkEngine
from sqlnb.errors import InvalidDataError, InvalidParameterError, UnsupportedError

pytest.importorskip("pyspark.sql")

FEATURES = ["x0", "x1", "x2"]
# 24 rows, three classes, small whole numbers (counts, category codes and Gaussian values
# alike), and positive weights that are not all equal.
_rng = np.random.default_rng(16)
X = _rng.integers(0, 4, size=(24, 3))
Y = np.array(["a", "b", "c"] * 8)
X[Y == "b", 0] += 2  # the classes differ, so the predictions are not all one label
X[Y == "c", 2] += 3
W = _rng.uniform(0.5, 2.0, size=24).round(3)
ROWS = [(i, *map(int, x), y, float(w)) for i, (x, y, w) in enumerate(zip(X, Y, W))]
SCHEMA = "id bigint, x0 bigint, x1 bigint, x2 bigint, y string, w double"
SKLEARN = {"gaussian": GaussianNB, "multinomial": MultinomialNB, "bernoulli": BernoulliNB,
           "complement": ComplementNB, "categorical": CategoricalNB}


@pytest.fixture(scope="module")
def rows(spark):
    return spark.createDataFrame(ROWS, SCHEMA)


@pytest.fixture
def duck():
    con = duckdb.connect()
    con.register("frame", pd.DataFrame(ROWS, columns=SCHEMA.replace(",", "").split()[::2]))
    con.execute("CREATE TABLE t AS SELECT * FROM frame")
    return con


def _sorted(rows) -> list[tuple]:
    return sorted(tuple(r) for r in rows)


def _close(got: list[tuple], expected: list[tuple], rel: float = 1e-10) -> bool:
    """Rows equal, their doubles within ``rel`` relative (absolute near zero)."""
    if len(got) != len(expected):
        return False
    for g_row, e_row in zip(got, expected):
        for g, e in zip(g_row, e_row):
            if isinstance(e, float) or isinstance(g, float):
                if not abs(g - e) <= rel * max(1.0, abs(e)):
                    return False
            elif g != e:
                return False
    return True


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("family", ["gaussian", "multinomial", "bernoulli", "complement",
                                    "poisson", "categorical"])
def test_a_model_fitted_on_spark_has_duckdbs_statistics_and_scikit_learns_answers(
        spark, rows, duck, family, weighted):
    weight = "w" if weighted else None
    name = f"sm_{family}_{'w' if weighted else 'u'}"
    model = sqlnb.NaiveBayes(name, con=spark, family=family).fit(
        rows, "y", features=FEATURES, weight=weight)
    oracle = sqlnb.NaiveBayes("d", con=duck, family=family).fit(
        "t", "y", features=FEATURES, weight=weight)

    for table in ("class_stats", "feature_stats"):
        got = _sorted(spark.sql(f"SELECT * FROM {name}_{table}").collect())
        expected = _sorted(duck.execute(f"SELECT * FROM d_{table}").fetchall())
        assert _close(got, expected), table

    predicted = model.predict(rows).orderBy("id")
    assert predicted.columns == ["id", *FEATURES, "y", "w", "prediction"]
    labels = [r.prediction for r in predicted.collect()]
    assert labels == [r[-1] for r in oracle.predict("t").order("id").fetchall()]
    proba = np.array([[r[f"proba_{c}"] for c in "abc"]
                      for r in model.predict_proba(rows).orderBy("id").collect()])
    log_proba = np.array([[r[f"log_proba_{c}"] for c in "abc"]
                          for r in model.predict_log_proba(rows).orderBy("id").collect()])
    if family in SKLEARN:
        estimator = SKLEARN[family]().fit(X, Y, sample_weight=W if weighted else None)
        assert labels == list(estimator.predict(X))
        np.testing.assert_allclose(proba, estimator.predict_proba(X), rtol=0, atol=1e-9)
        np.testing.assert_allclose(log_proba, estimator.predict_log_proba(X), rtol=1e-9)
    else:  # Poisson has no scikit-learn estimator: DuckDB's model is the oracle
        expected = oracle.predict_proba("t").order("id").df()[[f"proba_{c}" for c in "abc"]]
        np.testing.assert_allclose(proba, expected.to_numpy(), rtol=0, atol=1e-9)


def test_a_spark_models_tables_are_views_over_versions_a_refit_replaces(spark, rows):
    model = sqlnb.NaiveBayes("sm_versions", con=spark).fit(rows, "y", features=FEATURES)
    engine = model.engine
    roles = ("meta", "class_stats", "features", "feature_stats")
    assert [engine.current_version(f"sm_versions_{r}") for r in roles] == [1, 1, 1, 1]
    model.fit(rows.where("y <> 'c'"), "y", features=FEATURES)
    assert [engine.current_version(f"sm_versions_{r}") for r in roles] == [2, 2, 2, 2]
    assert [engine.versions(f"sm_versions_{r}") for r in roles] == [[2], [2], [2], [2]]
    assert model.classes_ == ["a", "b"]
    assert sqlnb.NaiveBayes("sm_versions", con=spark).classes_ == ["a", "b"]
    assert _sorted(spark.sql("SELECT class FROM sm_versions_class_params").collect()) == \
        [("a",), ("b",)]
    model.drop()
    left = [t.name for t in spark.catalog.listTables() if t.name.startswith("sm_versions")]
    assert left == []


# ---------------------------------------------------------------- models move between engines
def test_a_duckdb_export_predicts_the_same_on_spark_and_comes_back_bit_exact(
        spark, rows, duck, tmp_path):
    fitted = sqlnb.NaiveBayes("d", con=duck).fit("t", "y", features=FEATURES, weight="w")
    fitted.export(tmp_path / "from_duckdb")

    on_spark = sqlnb.import_model(spark, tmp_path / "from_duckdb", name="sm_imported")
    assert [r.prediction for r in on_spark.predict(rows).orderBy("id").collect()] == \
        [r[-1] for r in fitted.predict("t").order("id").fetchall()]
    reopened = sqlnb.load(spark, "sm_imported")
    assert (reopened.family.name, reopened.classes_) == ("gaussian", ["a", "b", "c"])

    reopened.export(tmp_path / "from_spark")
    back = duckdb.connect()
    sqlnb.import_model(back, tmp_path / "from_spark", name="d")
    for table in ("class_stats", "feature_stats"):
        query = f"SELECT * FROM d_{table} ORDER BY ALL"
        original, returned = duck.execute(query).fetchall(), back.execute(query).fetchall()
        # the doubles compared bit for bit, not within a tolerance
        assert [[v.hex() if isinstance(v, float) else v for v in row] for row in returned] == \
            [[v.hex() if isinstance(v, float) else v for v in row] for row in original]


def test_a_model_fitted_on_spark_exports_with_duckdbs_type_names(spark, rows, tmp_path):
    model = sqlnb.NaiveBayes("sm_export", con=spark, family="multinomial").fit(
        rows, "y", features=FEATURES)
    assert model.meta["target_type"] == "string"  # Spark's own name, on Spark
    model.export(tmp_path / "m")
    copy = sqlnb.import_model(duckdb.connect(), tmp_path / "m")
    assert copy.meta["target_type"] == "VARCHAR"
    assert [f["type"] for f in copy.meta["features"]] == ["BIGINT"] * 3
    estimator = MultinomialNB().fit(X, Y)
    frame = pd.DataFrame(ROWS, columns=SCHEMA.replace(",", "").split()[::2])
    assert copy.predict(frame).df()["prediction"].tolist() == list(estimator.predict(X))


# ---------------------------------------------------------------- updates
def _absolute(rows, columns: list[str], features_json: str) -> list[tuple]:
    """Statistics rows with a Gaussian n_mean as an absolute value: each model stores its
    class means relative to its features' origins (recorded in its metadata)."""
    if "n_mean" not in columns:
        return [tuple(r) for r in rows]
    origin = {f["name"]: f.get("origin", 0.0) for f in json.loads(features_json)}
    at, feature = columns.index("n_mean"), columns.index("feature")
    return [tuple(v + origin[r[feature]] if i == at else v for i, v in enumerate(r))
            for r in rows]


def _stats(spark, name: str) -> list[tuple]:
    features = spark.sql(f"SELECT features FROM {name}_meta").collect()[0][0]
    stats = spark.sql(f"SELECT * FROM {name}_feature_stats")
    return _sorted(_absolute(stats.collect(), stats.columns, features)) + \
        _sorted(spark.sql(f"SELECT * FROM {name}_class_stats").collect())


def _duck_stats(con, name: str) -> list[tuple]:
    features = con.execute(f"SELECT features FROM {name}_meta").fetchall()[0][0]
    stats = con.execute(f"SELECT * FROM {name}_feature_stats")
    columns = [d[0] for d in stats.description]
    return _sorted(_absolute(stats.fetchall(), columns, features)) + \
        _sorted(con.execute(f"SELECT * FROM {name}_class_stats").fetchall())


def test_partial_fit_forget_and_merge_on_spark_update_as_on_duckdb(spark, rows, duck):
    first, second = rows.where("id < 12"), rows.where("id >= 12")
    model = sqlnb.NaiveBayes("sm_updates", con=spark)
    model.partial_fit(first, "y", features=FEATURES, weight="w")
    model.partial_fit(second, "y", features=FEATURES, weight="w")
    oracle = sqlnb.NaiveBayes("d", con=duck).fit("t", "y", features=FEATURES, weight="w")
    assert _close(_stats(spark, "sm_updates"), _duck_stats(duck, "d"))

    model.forget(second, "y", weight="w")
    duck.execute("CREATE TABLE first AS SELECT * FROM t WHERE id < 12")
    oracle.fit("first", "y", features=FEATURES, weight="w")
    assert _close(_stats(spark, "sm_updates"), _duck_stats(duck, "d"))

    other = sqlnb.NaiveBayes("sm_other", con=spark).fit(second, "y", features=FEATURES,
                                                         weight="w")
    model.merge(other)
    oracle.fit("t", "y", features=FEATURES, weight="w")
    assert _close(_stats(spark, "sm_updates"), _duck_stats(duck, "d"))
    assert model.engine.versions("sm_updates_feature_stats") == [4]  # fit, +1, -1, merge

    declared = sqlnb.NaiveBayes("sm_declared", con=spark, family="multinomial")
    declared.partial_fit(first.where("y <> 'c'"), "y", features=FEATURES,
                         classes=["a", "b", "c"])
    assert declared.classes_ == ["a", "b", "c"]
    declared.partial_fit(second, "y")
    counted = MultinomialNB().partial_fit(X[:12][Y[:12] != "c"], Y[:12][Y[:12] != "c"],
                                          classes=["a", "b", "c"]).partial_fit(X[12:], Y[12:])
    assert [r.prediction for r in declared.predict(rows).orderBy("id").collect()] == \
        list(counted.predict(X))


def test_a_partial_fit_that_fails_midway_leaves_the_spark_model_as_it_was(spark, rows):
    model = sqlnb.NaiveBayes("sm_failed", con=spark, family="multinomial").fit(
        rows, "y", features=FEATURES)
    before = _sorted(model.predict_proba(rows).collect())
    rows.createOrReplaceTempView("failed_rows")
    functions = "SELECT id, sm_failed_predict_proba(struct(x0, x1, x2)) FROM failed_rows"
    functions_before = _sorted(spark.sql(functions).collect())
    # the last row's negative count fails the batch checks, after the new version of the
    # statistics was created and the batch scanned
    bad = rows.union(spark.createDataFrame([(99, 1, -5, 0, "a", 1.0)], SCHEMA))
    with pytest.raises(InvalidDataError, match="negative"):
        model.partial_fit(bad, "y")
    assert _sorted(model.predict_proba(rows).collect()) == before
    assert _sorted(spark.sql(functions).collect()) == functions_before  # not rewritten
    spark.catalog.dropTempView("failed_rows")
    assert _sorted(sqlnb.load(spark, "sm_failed").predict_proba(rows).collect()) == before
    names = [f"sm_failed_{role}" for role in ("meta", "class_stats", "features",
                                              "feature_stats")]
    assert [model.engine.versions(name) for name in names] == [[1]] * 4

    # a killed writer's leftovers (a version never switched to, an upsert's scratch
    # table) are dropped by the next write
    spark.sql("CREATE TABLE sm_failed_feature_stats__v7 AS SELECT * FROM sm_failed_feature_stats")
    spark.sql("CREATE TABLE sm_failed_class_stats__v2__next AS SELECT 1 AS x")
    spark.sql("CREATE VIEW sm_failed_class_params__v7 AS SELECT 1 AS x")  # a scratch view
    model.partial_fit(rows.where("id < 3"), "y")
    # (an update leaves the features as they are: their view still reads version 1)
    assert [model.engine.versions(name) for name in names] == [[8], [8], [1], [8]]
    # and the model answers as scikit-learn's fitted on both batches
    reference = MultinomialNB().fit(np.vstack([X, X[:3]]), np.concatenate([Y, Y[:3]]))
    got = model.predict_proba(rows).toPandas().sort_values("id")
    np.testing.assert_allclose(got[[f"proba_{c}" for c in reference.classes_]].to_numpy(),
                               reference.predict_proba(X), rtol=0, atol=1e-9)
    assert not [t.name for t in spark.catalog.listTables()
                if t.name.endswith("__next") or t.name.startswith("sm_failed_class_params__")]


def test_a_refit_that_fails_leaves_the_spark_model_as_it_was(spark, rows):
    """A fit of a model that exists stages every table and parameter view of the new one:
    refused after its scan, the old model still answers, through sqlnb.load too."""
    model = sqlnb.NaiveBayes("sm_refit", con=spark, family="multinomial").fit(
        rows, "y", features=FEATURES)
    before = _sorted(model.predict_proba(rows).collect())
    bad = rows.union(spark.createDataFrame([(99, 1, -5, 0, "a", 1.0)], SCHEMA))
    with pytest.raises(InvalidDataError, match="negative"):
        sqlnb.NaiveBayes("sm_refit", con=spark, family="multinomial").fit(
            bad, "y", features=FEATURES)
    assert _sorted(model.predict_proba(rows).collect()) == before
    assert _sorted(sqlnb.load(spark, "sm_refit").predict_proba(rows).collect()) == before


def test_models_live_in_the_database_their_engine_names(spark, rows):
    """Two models called ``twin`` in two databases: each its own tables and functions."""
    for database in ("sd_one", "sd_two"):
        spark.sql(f"CREATE DATABASE IF NOT EXISTS {database}")
    one = sqlnb.NaiveBayes("twin", con=SparkEngine(spark, database="sd_one"),
                           family="multinomial").fit(rows.where("y <> 'c'"), "y", features=FEATURES)
    two = sqlnb.NaiveBayes("twin", con=SparkEngine(spark, database="sd_two"),
                           family="multinomial").fit(rows, "y", features=FEATURES)
    assert (one.classes_, two.classes_) == (["a", "b"], ["a", "b", "c"])
    current = spark.catalog.currentDatabase()
    assert not [t.name for t in spark.catalog.listTables(current) if t.name.startswith("twin")]
    assert spark.catalog.tableExists("sd_one.twin_meta")
    rows.createOrReplaceTempView("twin_rows")
    assert {r[0] for r in spark.sql("SELECT sd_one.twin_predict(struct(x0, x1, x2)) "
                                    "FROM twin_rows").collect()} == {"a", "b"}
    spark.catalog.dropTempView("twin_rows")

    one.partial_fit(rows.where("y <> 'c' AND id < 6"), "y")  # the other one is untouched
    reopened = sqlnb.load(SparkEngine(spark, database="sd_two"), "twin")
    assert _sorted(reopened.predict_proba(rows).collect()) == \
        _sorted(two.predict_proba(rows).collect())
    one.drop()
    assert not spark.catalog.tableExists("sd_one.twin_meta")
    assert not spark.catalog.functionExists("sd_one.twin_predict")
    assert spark.catalog.functionExists("sd_two.twin_predict")
    assert sqlnb.load(SparkEngine(spark, database="sd_two"), "twin").classes_ == ["a", "b", "c"]


def test_a_model_name_spark_cannot_give_a_table_is_refused_before_any_write(spark, rows):
    with pytest.raises(InvalidParameterError, match="only letters, digits and _"):
        sqlnb.NaiveBayes("churn model", con=spark).fit(rows, "y", features=FEATURES)
    assert not [t.name for t in spark.catalog.listTables() if t.name.startswith("churn")]


# ---------------------------------------------------------------- what stays DuckDB-only
def test_what_is_duckdb_only_says_so_on_spark_and_what_to_do_instead(spark, rows):
    model = sqlnb.NaiveBayes("sm_refused", con=spark, family="multinomial")
    calls = {
        "sparse input": lambda: model.fit_sparse(rows, rows, "y", features=FEATURES),
    }
    for feature, call in calls.items():
        with pytest.raises(UnsupportedError, match=f"{feature} is DuckDB-only") as refused:
            call()
        assert str(refused.value).split(": ", 1)[1] == DUCKDB_ONLY[feature]
    assert not [t.name for t in spark.catalog.listTables() if t.name.startswith("sm_refused")]


def test_mixed_models_fit_and_score_on_spark_as_on_duckdb(spark, duck):
    rows = [(i, float(i % 5) + 0.25 * i, ["red", "green", "blue"][i % 3],
             "a" if i % 3 == 0 or i % 4 == 1 else "b")
            for i in range(18)]
    schema = "id bigint, size double, colour string, y string"
    frame = spark.createDataFrame(rows, schema)
    duck.register("mixed_rows", pd.DataFrame(rows, columns=["id", "size", "colour", "y"]))
    model = sqlnb.NaiveBayes("sm_mixed", con=spark, family="auto").fit(
        frame, "y", features=["size", "colour"])
    oracle = sqlnb.NaiveBayes("d", con=duck, family="auto").fit(
        "mixed_rows", "y", features=["size", "colour"])
    assert model.families_ == oracle.families_ == {"size": "gaussian", "colour": "categorical"}
    got = np.array([[r.proba_a, r.proba_b]
                    for r in model.predict_proba(frame).orderBy("id").collect()])
    expected = oracle.predict_proba("mixed_rows").order("id").df()[["proba_a", "proba_b"]]
    np.testing.assert_allclose(got, expected.to_numpy(), rtol=0, atol=1e-9)
    assert model.evaluate(frame, "y")["accuracy"] == oracle.evaluate("mixed_rows", "y")["accuracy"]


def test_a_wide_gaussian_model_scores_on_spark_as_scikit_learn_does(spark):
    # 30 features x 5 classes: past the width at which DuckDB scores with list functions,
    # which Spark SQL does not have; the engine's capabilities keep Spark on the compiled
    # statement.
    rng = np.random.default_rng(30)
    X = rng.normal(size=(60, 30)).round(6)
    y = np.arange(60) % 5
    X[:, :5] += y[:, None]  # the classes differ
    columns = [f"f{j}" for j in range(30)]
    frame = spark.createDataFrame(
        [(i, *map(float, x), int(c)) for i, (x, c) in enumerate(zip(X, y))],
        "id bigint, " + ", ".join(f"{c} double" for c in columns) + ", y bigint")
    model = sqlnb.NaiveBayes("sm_wide", con=spark, family="gaussian").fit(
        frame, "y", features=columns)
    oracle = GaussianNB().fit(X, y)
    scored = model.predict_proba(frame).orderBy("id").collect()
    got = np.array([[getattr(r, f"proba_{c}") for c in range(5)] for r in scored])
    np.testing.assert_allclose(got, oracle.predict_proba(X), rtol=0, atol=1e-9)
    labels = [r.prediction for r in model.predict(frame).orderBy("id").collect()]
    assert labels == oracle.predict(X).tolist()


# ------------------------------------------------ models of parts move between engines
# Mixed columns (a Gaussian double, categorical text, a flag, Poisson counts) and a group
# column: each kind of model made of parts, fitted on one engine, imported into the other.
_mixed = np.random.default_rng(23)
MIXED = pd.DataFrame({
    "id": np.arange(36),
    "y": np.array(["a", "b", "c"] * 12),
    "g": np.where(np.arange(36) % 6 < 3, "north", "south"),
    "x": _mixed.normal(0.0, 1.0, 36).round(6) + np.tile([0.0, 1.0, 2.0], 12),
    "colour": np.array(["red", "green", "blue"])[_mixed.integers(0, 3, 36)],
    "flag": _mixed.random(36) < 0.5,
    "visits": _mixed.poisson(2.0, 36).astype(np.int32),
})
PARTS_KINDS = {
    "auto": {"family": "auto", "families": {"visits": "poisson"},
             "fit": {"features": ["x", "colour", "flag", "visits"]}},
    "per-group": {"family": "gaussian", "fit": {"features": ["x", "visits"], "group_by": "g"}},
    "per-group auto": {"family": "auto", "families": {"visits": "poisson"},
                       "fit": {"features": ["x", "colour", "flag", "visits"],
                               "group_by": "g"}},
}


def _hex(rows) -> list[tuple]:
    """Rows with their doubles as hex (compared bit for bit), in a stable order."""
    return sorted((tuple(v.hex() if isinstance(v, float) else v for v in row) for row in rows),
                  key=repr)


def _mixed_duck() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.register("frame", MIXED)
    con.execute("CREATE TABLE mixed AS SELECT * FROM frame")
    return con


@pytest.mark.parametrize("kind", list(PARTS_KINDS))
def test_a_model_of_parts_exported_from_duckdb_answers_on_spark_as_on_duckdb(
        spark, kind, tmp_path):
    spec = dict(PARTS_KINDS[kind])
    fit = spec.pop("fit")
    duck = _mixed_duck()
    fitted = sqlnb.NaiveBayes("parts", con=duck, **spec).fit("mixed", "y", **fit)
    on_spark = sqlnb.import_model(spark, fitted.export(tmp_path / "m"),
                                  name=f"sm_parts_in_{kind.replace(' ', '_').replace('-', '_')}")
    assert on_spark.classes_ == ["a", "b", "c"]
    frame = spark.createDataFrame(MIXED).coalesce(1)
    got = on_spark.predict_proba(frame).orderBy("id").toPandas()
    expected = fitted.predict_proba("mixed").order("id").df()
    columns = [f"proba_{c}" for c in "abc"]
    assert got["id"].tolist() == expected["id"].tolist()
    np.testing.assert_allclose(got[columns].to_numpy(), expected[columns].to_numpy(),
                               rtol=0, atol=1e-9)
    assert [r.prediction for r in on_spark.predict(frame).orderBy("id").collect()] == \
        fitted.predict("mixed").order("id").df()["prediction"].tolist()


@pytest.mark.parametrize("kind", list(PARTS_KINDS))
def test_a_model_of_parts_fitted_on_spark_comes_to_duckdb_with_its_statistics_bit_exact(
        spark, kind, tmp_path):
    spec = dict(PARTS_KINDS[kind])
    fit = spec.pop("fit")
    name = f"sm_parts_out_{kind.replace(' ', '_').replace('-', '_')}"
    frame = spark.createDataFrame(MIXED).coalesce(1)
    model = sqlnb.NaiveBayes(name, con=spark, **spec).fit(frame, "y", **fit)
    folder = model.export(tmp_path / "m")
    duck = _mixed_duck()
    copy = sqlnb.import_model(duck, folder, name="back")
    roles = [t["role"] for t in json.loads((folder / "model.json").read_text())["tables"]]
    assert {"class_stats", "features"} <= set(roles)
    assert ("group_class_stats" in roles) == ("group_by" in fit)
    # the files speak DuckDB's type names, as model.json does
    types = {"x": "DOUBLE", "colour": "VARCHAR", "flag": "BOOLEAN", "visits": "INTEGER"}
    assert duck.execute("SELECT feature, type FROM back_features ORDER BY feature_index"
                        ).fetchall() == [(f, types[f]) for f in fit["features"]]
    if "group_by" in fit:
        assert duck.execute("SELECT name, type FROM back_group_columns").fetchall() == \
            [("g", "VARCHAR")]
    for role in (r for r in roles if r.endswith("stats")):  # every statistics table
        assert _hex(duck.execute(f"SELECT * FROM back_{role}").fetchall()) == \
            _hex(spark.sql(f"SELECT * FROM {name}_{role}").collect()), role
    # the same statistics give the same answers: DuckDB's copy as the model on Spark
    got = copy.predict_proba("mixed").order("id").df()
    expected = model.predict_proba(frame).orderBy("id").toPandas()
    columns = [f"proba_{c}" for c in "abc"]
    np.testing.assert_allclose(got[columns].to_numpy(), expected[columns].to_numpy(),
                               rtol=0, atol=1e-9)
