"""The SQL-native facade: sources, lazy results, persistence, label types."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import as_counts, load
from sklearn.naive_bayes import CategoricalNB, GaussianNB, MultinomialNB

import sqlnb


def iris_frame() -> pd.DataFrame:
    X, y = load("iris")
    frame = pd.DataFrame(X, columns=["sepal_length", "sepal_width", "petal_length", "petal_width"])
    frame["species"] = np.array(["setosa", "versicolor", "virginica"])[y]
    return frame


def proba_matrix(relation, classes) -> np.ndarray:
    frame = relation.df()
    return frame[[f"proba_{c}" for c in classes]].to_numpy()


def test_fit_predict_matches_sklearn_on_a_table(con):
    frame = iris_frame()
    con.register("iris_df", frame)
    con.execute("CREATE TABLE iris AS SELECT * FROM iris_df")
    model = sqlnb.NaiveBayes("iris_nb", con=con).fit("iris", "species")
    reference = GaussianNB().fit(frame.drop(columns="species").to_numpy(), frame["species"])

    assert model.classes_ == ["setosa", "versicolor", "virginica"]
    assert model.features_ == ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    predicted = model.predict("iris").df()
    assert list(predicted.columns) == list(frame.columns) + ["prediction"]
    X = frame.drop(columns="species").to_numpy()
    assert (predicted["prediction"].to_numpy() == reference.predict(X)).all()
    np.testing.assert_allclose(proba_matrix(model.predict_proba("iris"), model.classes_),
                               reference.predict_proba(X), atol=1e-9)
    log_proba = model.predict_log_proba("iris").df()
    np.testing.assert_allclose(
        log_proba[[f"log_proba_{c}" for c in model.classes_]].to_numpy(),
        reference.predict_log_proba(X), atol=1e-9)
    joint = model.predict_joint_log_proba("iris").df()
    np.testing.assert_allclose(joint[[f"jll_{c}" for c in model.classes_]].to_numpy(),
                               reference.predict_joint_log_proba(X), rtol=1e-9)


def test_results_are_lazy_relations(con):
    frame = iris_frame()
    model = sqlnb.NaiveBayes("lazy", con=con).fit(frame, "species")
    result = model.predict(frame)
    assert isinstance(result, duckdb.DuckDBPyRelation)
    assert result.arrow().read_all().num_rows == len(frame)  # materialised only here


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow", "relation", "view"])
def test_every_kind_of_source_gives_the_same_model(con, kind):
    frame = iris_frame()
    con.register("iris_frame", frame)
    con.execute("CREATE VIEW iris_view AS SELECT * FROM iris_frame")
    source = {
        "pandas": frame,
        "polars": pl.from_pandas(frame),
        "arrow": pa.Table.from_pandas(frame),
        "relation": con.sql("SELECT * FROM iris_frame"),
        "view": "iris_view",
    }[kind]
    model = sqlnb.NaiveBayes(f"m_{kind}", con=con).fit(source, "species")
    baseline = sqlnb.NaiveBayes("baseline", con=con).fit(frame, "species")
    params = con.sql(f'SELECT * FROM "m_{kind}_feature_params" ORDER BY class, feature').df()
    expected = con.sql('SELECT * FROM "baseline_feature_params" ORDER BY class, feature').df()
    assert list(params.columns) == list(expected.columns)
    assert params[["class", "feature"]].equals(expected[["class", "feature"]])
    # a small in-memory input is summed long (around each class's mean), a relation or a
    # view wide (around the pilot's shifts): the same moments to rounding in the last bits
    # (docs/how-it-works.md, "Small inputs summed long")
    numbers = [c for c in params.columns if c not in ("class", "feature")]
    np.testing.assert_allclose(params[numbers].to_numpy(dtype=float),
                               expected[numbers].to_numpy(dtype=float), rtol=1e-14, atol=0)
    assert model.predict(source).df()["prediction"].tolist() == \
        baseline.predict(frame).df()["prediction"].tolist()


def test_parquet_glob_in_place_to_parquet(con, tmp_path):
    X, y = load("digits")
    X = as_counts(X)
    columns = [f"px{i}" for i in range(X.shape[1])]
    table = pa.table({**{c: X[:, i] for i, c in enumerate(columns)}, "digit": y})
    for part in range(4):  # several files, read through one glob
        pq.write_table(table.slice(part * 450, 450), tmp_path / f"part-{part}.parquet")
    glob = str(tmp_path / "part-*.parquet")

    model = sqlnb.NaiveBayes("digits", con=con, family="multinomial").fit(glob, "digit")
    out = tmp_path / "predictions.parquet"
    model.predict(glob).write_parquet(str(out))  # DuckDB writes; no rows in Python

    reference = MultinomialNB().fit(X, y)
    written = pq.read_table(out)
    assert written.num_rows == len(y)
    assert np.array_equal(written.column("prediction").to_numpy(), reference.predict(X))


def test_csv_source(con, tmp_path):
    frame = iris_frame()
    path = tmp_path / "iris.csv"
    frame.to_csv(path, index=False)
    model = sqlnb.NaiveBayes("from_csv", con=con).fit(str(path), "species")
    reference = GaussianNB().fit(frame.drop(columns="species").to_numpy(), frame["species"])
    predicted = model.predict(str(path)).df()["prediction"].to_numpy()
    assert (predicted == reference.predict(frame.drop(columns="species").to_numpy())).all()


def test_weight_column_is_not_a_feature(con):
    frame = iris_frame()
    frame["w"] = np.random.default_rng(0).uniform(0.5, 2, len(frame))
    model = sqlnb.NaiveBayes("weighted", con=con).fit(frame, "species", weight="w")
    assert "w" not in model.features_
    X = frame.drop(columns=["species", "w"]).to_numpy()
    reference = GaussianNB().fit(X, frame["species"], sample_weight=frame["w"])
    np.testing.assert_allclose(proba_matrix(model.predict_proba(frame), model.classes_),
                               reference.predict_proba(X), atol=1e-9)


def test_explicit_feature_subset(con):
    frame = iris_frame()
    model = sqlnb.NaiveBayes("subset", con=con).fit(frame, "species",
                                                     features=["petal_length", "petal_width"])
    assert model.features_ == ["petal_length", "petal_width"]
    # predict only needs the model's features
    only = frame[["petal_length", "petal_width"]]
    assert len(model.predict(only).df()) == len(frame)


def test_categorical_on_raw_strings(con):
    rng = np.random.default_rng(1)
    colours = np.array(["red", "green", "blue"])
    sizes = np.array(["S", "M", "L", "XL"])
    y = rng.integers(0, 2, 400)
    c = rng.integers(0, 3, 400)
    s = (y + rng.integers(0, 3, 400)) % 4
    frame = pd.DataFrame({"colour": colours[c], "size": sizes[s], "label": y.astype(bool)})
    model = sqlnb.NaiveBayes("cat", con=con, family="categorical").fit(frame, "label")
    # CategoricalNB on ordinal codes of the same values (codes in sorted value order)
    codes = np.column_stack([np.searchsorted(np.unique(frame[col]), frame[col])
                             for col in ("colour", "size")])
    reference = CategoricalNB().fit(codes, y.astype(bool))
    assert model.classes_ == [False, True]
    got = model.predict_proba(frame).df()[["proba_False", "proba_True"]].to_numpy()
    np.testing.assert_allclose(got, reference.predict_proba(codes), atol=1e-9)


def test_seen_missing_and_unseen_categories_scored_in_one_statement(con):
    # the compiled lookup sends a NULL and an unseen category to two extra list entries
    frame = pd.DataFrame({"colour": ["red", "blue", "red", "green", "blue", "red"],
                          "size": ["S", "M", "M", "L", "S", "L"], "y": [1, 0, 1, 0, 0, 0]})
    model = sqlnb.NaiveBayes("mixed_rows", con=con, family="categorical",
                             scoring="compiled").fit(frame, "y")
    fresh = pd.DataFrame({"colour": ["blue", None, "purple"], "size": ["M", "M", "M"]})
    got = model.predict_proba(fresh).df()[["proba_0", "proba_1"]].to_numpy()

    def codes(column: str, values: list[str]) -> np.ndarray:
        return np.searchsorted(np.unique(frame[column]), values).reshape(-1, 1)

    both = CategoricalNB().fit(np.hstack([codes("colour", frame["colour"]),
                                          codes("size", frame["size"])]), frame["y"])
    size_only = CategoricalNB().fit(codes("size", frame["size"]), frame["y"])
    # the NULL colour leaves the feature out; 'purple' adds log(alpha / (n_class + 3 alpha))
    unseen = np.log(1.0 / (np.array([4.0, 2.0]) + 3.0))  # class sizes 4 and 2
    purple = size_only.predict_joint_log_proba(codes("size", ["M"])) + unseen
    expected = np.vstack([
        both.predict_proba(np.hstack([codes("colour", ["blue"]), codes("size", ["M"])])),
        size_only.predict_proba(codes("size", ["M"])),
        np.exp(purple - np.logaddexp.reduce(purple, axis=1, keepdims=True)),
    ])
    np.testing.assert_allclose(got, expected, atol=1e-9)


def test_unseen_category_is_smoothed_by_default_and_error_on_request(con):
    frame = pd.DataFrame({"colour": ["red", "blue", "red", "green"], "y": [1, 0, 1, 0]})
    model = sqlnb.NaiveBayes("unseen", con=con, family="categorical").fit(frame, "y")
    fresh = pd.DataFrame({"colour": ["purple"]})
    proba = model.predict_proba(fresh).df()
    # an unseen value contributes log(alpha / (total + alpha * n_categories)) per class;
    # both classes have 2 rows and 3 categories, so only the prior decides: 0.5 / 0.5
    np.testing.assert_allclose(proba[["proba_0", "proba_1"]].to_numpy(), [[0.5, 0.5]])
    strict = sqlnb.NaiveBayes("strict", con=con, family="categorical", unseen="error")
    strict.fit(frame, "y")
    with pytest.raises(duckdb.Error, match="unseen category"):
        strict.predict(fresh).fetchall()


def test_load_in_a_later_process(tmp_path):
    path = tmp_path / "models.duckdb"
    frame = iris_frame()
    with duckdb.connect(str(path)) as con:
        con.register("iris_df", frame)
        con.execute("CREATE TABLE iris AS SELECT * FROM iris_df")
        sqlnb.NaiveBayes("flowers", con=con, var_smoothing=1e-6).fit("iris", "species")
        expected = sqlnb.load(con, "flowers").predict_proba("iris").fetchall()
    script = textwrap.dedent(f"""
        import duckdb, sqlnb, json
        con = duckdb.connect({str(path)!r})
        model = sqlnb.load(con, "flowers")
        assert model.family.params["var_smoothing"] == 1e-6
        print(json.dumps(model.predict_proba("iris").fetchall()))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True)
    import json
    assert json.loads(out.stdout) == [list(r) for r in expected]


def test_model_tables_are_described_in_metadata(con):
    frame = iris_frame()
    model = sqlnb.NaiveBayes("meta", con=con).fit(frame, "species")
    meta = model.meta
    assert meta["family"] == "gaussian"
    assert meta["schema_version"] == 2
    assert meta["target"] == "species" and meta["target_type"] == "VARCHAR"
    assert [f["name"] for f in meta["features"]] == model.features_
    assert meta["classes"] == ["setosa", "versicolor", "virginica"]
    counts = con.sql('SELECT class, n FROM "meta_class_stats" ORDER BY class').fetchall()
    assert counts == [("setosa", 50), ("versicolor", 50), ("virginica", 50)]


def test_refit_replaces_the_model(con):
    frame = iris_frame()
    model = sqlnb.NaiveBayes("again", con=con).fit(frame, "species")
    model.fit(frame.iloc[:100], "species")
    assert model.classes_ == ["setosa", "versicolor"]


def test_drop_removes_every_relation(con):
    frame = iris_frame()
    model = sqlnb.NaiveBayes("gone", con=con).fit(frame, "species")
    model.drop()
    left = con.sql("SELECT table_name FROM information_schema.tables "
                   "WHERE table_name LIKE 'gone%'").fetchall()
    assert left == []


def test_categories_that_differ_only_in_case_or_spaces_are_told_apart(con):
    # Scoring looks a value up by exact text (DuckDB: a cast to an ENUM of the categories):
    # no folding of case, spaces or quotes; a value outside the domain is unseen.
    values = np.array(["", "a", "A", "a ", " a", "it's", "back\\slash", "é", "e\u0301"])
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 600)
    codes = (y * 2 + rng.integers(0, 5, 600)) % len(values)
    frame = pd.DataFrame({"v": values[codes], "y": y})
    model = sqlnb.NaiveBayes("exact", con=con, family="categorical", alpha=0.5).fit(frame, "y")
    # CategoricalNB on the codes of the distinct values
    reference = CategoricalNB(alpha=0.5).fit(codes.reshape(-1, 1), y)
    got = model.predict_proba(frame).df()[["proba_0", "proba_1", "proba_2"]].to_numpy()
    np.testing.assert_allclose(got, reference.predict_proba(codes.reshape(-1, 1)), atol=1e-12)
    # "a\t" and "B" were never seen: both score as the unseen category, like each other
    fresh = model.predict_proba(pd.DataFrame({"v": ["a\t", "B"]})).df()
    assert fresh.iloc[0, -3:].tolist() == fresh.iloc[1, -3:].tolist()
    # the standalone statement (to_sql) uses the same lookup
    standalone = con.sql(model.to_sql("frame", output="predict_proba")).df()
    np.testing.assert_allclose(standalone[["proba_0", "proba_1", "proba_2"]].to_numpy(), got,
                               atol=1e-12)
