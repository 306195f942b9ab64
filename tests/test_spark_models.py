"""Models that live on Spark: fit, predict and the versioned statistics tables.

The oracles: the same model fitted in DuckDB (statistics within 1e-10 relative: the engines
sum in different orders) and scikit-learn (predictions identical, probabilities within
1e-9). Every Spark test shares one local session (the ``spark`` fixture of conftest.py);
each fits a tiny table.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB

import sqlnb

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
