"""Models saved by an earlier sqlnb still load, score the same and take more data.

``tests/fixtures/saved_models.duckdb.gz`` was written by ``tests/fixtures/make_saved_models.py``
with sqlnb 0.1.0 (schema 1): one model of each kind, with the rows it was fitted on. What
each model predicted then is in ``saved_models.json`` beside it; that record is the oracle.
"""

from __future__ import annotations

import gzip
import json
import pathlib

import duckdb
import numpy as np
import pytest

import sqlnb

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
EXPECTED = json.loads((FIXTURES / "saved_models.json").read_text())["models"]
# Kinds that sqlnb 0.1.0 could already update incrementally.
UPDATABLE = [name for name, record in EXPECTED.items()
             if record["how"]["family"] != "auto" and "group_by" not in record["how"]]


def _opened_copy(tmp_path: pathlib.Path, stem: str):
    """A connection to a writable copy of the compressed database ``<stem>.duckdb.gz``."""
    path = tmp_path / f"{stem}.duckdb"
    path.write_bytes(gzip.decompress((FIXTURES / f"{stem}.duckdb.gz").read_bytes()))
    return duckdb.connect(str(path))


@pytest.fixture
def saved(tmp_path: pathlib.Path):
    """A writable copy of the saved database."""
    connection = _opened_copy(tmp_path, "saved_models")
    yield connection
    connection.close()


@pytest.mark.parametrize("name", list(EXPECTED))
def test_a_saved_model_predicts_what_it_predicted_when_written(saved, name):
    expected = EXPECTED[name]
    model = sqlnb.load(saved, name)
    assert model.classes_ == expected["classes"]
    scored, key = expected["scored"], expected["key"]
    predictions = model.predict(scored).order(key).select("prediction").fetchall()
    assert [row[0] for row in predictions] == expected["predictions"]
    probabilities = model.predict_proba(scored).order(key)
    columns = [f"proba_{label}" for label in expected["classes"]]
    for row, want in zip(probabilities.select(*columns).fetchall(), expected["proba"],
                         strict=True):
        assert row == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("name", UPDATABLE)
def test_a_saved_model_can_be_partial_fit(saved, name):
    """Folding the training rows in once more doubles every class's row count."""
    how = EXPECTED[name]["how"]
    model = sqlnb.load(saved, name)
    if "text" in how:
        model.partial_fit("train_text", "label", text=how["text"])
    elif how.get("long"):
        model.partial_fit_long("train_long", "label", labels="labels_long")
    else:
        model.partial_fit("train_columns", "label", features=how["features"])
    counts = saved.execute(f'SELECT class, n FROM "{name}_class_stats" ORDER BY class').fetchall()
    assert [[label, n] for label, n in counts] == [
        [label, 2 * n] for label, n in EXPECTED[name]["class_counts"]
    ]
    assert len(model.predict(EXPECTED[name]["scored"]).fetchall()) == len(
        EXPECTED[name]["predictions"])


@pytest.mark.parametrize("name, grouped, input_kind, parts", [
    ("m_gaussian", False, "columns", ("gaussian",)),
    ("m_auto", False, "columns", ("gaussian", "bernoulli", "categorical")),
    ("m_grouped", True, "columns", ("gaussian",)),
    ("m_text", False, "text", ("multinomial",)),
    ("m_long", False, "long", ("bernoulli",)),
])
def test_a_schema_1_model_gets_its_spec_from_its_tables(saved, name, grouped, input_kind, parts):
    spec = sqlnb.load(saved, name).spec
    assert spec.schema_version == 1
    assert (spec.grouped, spec.input, spec.parts) == (grouped, input_kind, parts)


def test_updating_a_schema_1_model_writes_schema_2(saved):
    model = sqlnb.load(saved, "m_text")
    model.partial_fit("train_text", "label", text="body")
    row = saved.execute("SELECT schema_version, spec FROM m_text_meta").fetchall()
    assert row == [(2, '{"input": "text", "groups": [], "parts": ["multinomial"]}')]
    assert sqlnb.load(saved, "m_text").spec.input == "text"


def test_updating_a_schema_1_model_records_the_relations_it_owns(saved):
    features = EXPECTED["m_gaussian"]["how"]["features"]
    sqlnb.load(saved, "m_gaussian").partial_fit("train_columns", "label", features=features)
    relations = saved.execute("SELECT relations FROM m_gaussian_meta").fetchall()[0][0]
    assert sorted(json.loads(relations)) == sorted(
        [f"m_gaussian_{role}" for role in ("meta", "class_stats", "features", "feature_stats",
                                           "class_params", "feature_params")]
        + [f"m_gaussian_{macro}" for macro in ("joint_log_likelihood", "predict",
                                               "predict_proba", "predict_log_proba", "score",
                                               "explain", "scoring_params",
                                               "explain_params")])


def test_dropping_a_schema_1_model_leaves_the_other_saved_models(saved):
    sqlnb.load(saved, "m_grouped").drop()
    left = {row[0] for row in saved.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert not any(name.startswith("m_grouped_") for name in left)
    assert {"m_gaussian_meta", "m_auto_meta", "m_text_meta"} <= left


def test_a_model_from_a_newer_sqlnb_is_refused_with_a_clear_error(saved):
    saved.execute("UPDATE m_gaussian_meta SET schema_version = 99")
    with pytest.raises(sqlnb.errors.ModelNotFoundError, match="newer sqlnb .*upgrade sqlnb"):
        sqlnb.load(saved, "m_gaussian")


def test_a_schema_2_row_without_a_spec_column_reads_its_kind_from_its_tables():
    """sqlnb before the spec column wrote schema 2 (the relations list) without it."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i % 3 AS store, "
                "CAST(i % 2 * 4 + i % 5 AS DOUBLE) AS x FROM range(30) r(i)")
    model = sqlnb.NaiveBayes("m", con=con).fit("t", "y", features=["x"], group_by="store")
    before = model.predict_proba("t").order("x, store, y").fetchall()
    con.execute("ALTER TABLE m_meta DROP COLUMN spec")
    reloaded = sqlnb.load(con, "m")
    assert (reloaded.spec.schema_version, reloaded.spec.group_names) == (2, ["store"])
    assert reloaded.predict_proba("t").order("x, store, y").fetchall() == before


def test_a_saved_gaussian_model_keeps_its_absolute_class_means_when_updated(saved):
    """Before origins, the class means were stored as they are (origin 0): an update folds
    the batch in on that origin, so the parameters are those of the doubled rows."""
    from sklearn.naive_bayes import GaussianNB

    features = EXPECTED["m_gaussian"]["how"]["features"]
    model = sqlnb.load(saved, "m_gaussian")
    assert all("origin" not in f for f in model.meta["features"])
    model.partial_fit("train_columns", "label", features=features)
    rows = saved.execute(f"SELECT {', '.join(features)}, label FROM train_columns").fetchnumpy()
    X = np.column_stack([rows[f] for f in features])
    reference = GaussianNB().fit(np.vstack([X, X]), np.concatenate([rows["label"]] * 2))
    ours = model.to_sklearn()
    np.testing.assert_allclose(ours.theta_, reference.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, reference.var_, rtol=1e-9)
    assert ours.epsilon_ == pytest.approx(reference.epsilon_, rel=1e-9)
    assert all("origin" not in f for f in sqlnb.load(saved, "m_gaussian").meta["features"])


# ``saved_models_schema2.duckdb.gz`` was written by the same script with an sqlnb that saved
# schema 2 (a spec and the relations each model owns) and updated single-family models
# only, in DuckDB 1.5's storage format; ``saved_models_schema2.json`` is its record. Every
# kind of model in it now takes more data, and gives it back.
EXPECTED_2 = json.loads((FIXTURES / "saved_models_schema2.json").read_text())["models"]


@pytest.fixture
def saved_2(tmp_path: pathlib.Path):
    """A writable copy of the schema-2 database."""
    connection = _opened_copy(tmp_path, "saved_models_schema2")
    yield connection
    connection.close()


def _scored(model, record):
    key = record["key"]
    predictions = [row[0] for row in
                   model.predict(record["scored"]).order(key).select("prediction").fetchall()]
    columns = [f"proba_{label}" for label in record["classes"]]
    proba = model.predict_proba(record["scored"]).order(key).select(*columns).fetchall()
    return predictions, proba


def _update(model, how, *, forget=False):
    if "text" in how:
        (model.forget if forget else model.partial_fit)("train_text", "label", text=how["text"])
    elif how.get("long"):
        assert not forget
        model.partial_fit_long("train_long", "label", labels="labels_long")
    else:
        (model.forget if forget else model.partial_fit)(
            "train_columns", "label", features=how["features"], group_by=how.get("group_by"))


@pytest.mark.parametrize("name", list(EXPECTED_2))
def test_a_schema_2_model_predicts_what_it_predicted_when_written(saved_2, name):
    record = EXPECTED_2[name]
    model = sqlnb.load(saved_2, name)
    assert model.spec.schema_version == 2
    assert model.classes_ == record["classes"]
    predictions, proba = _scored(model, record)
    assert predictions == record["predictions"]
    for row, want in zip(proba, record["proba"], strict=True):
        assert row == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("name", list(EXPECTED_2))
def test_every_kind_of_schema_2_model_can_be_partial_fit(saved_2, name):
    """The training rows folded in once more double every class's row count (the pooled
    class table of a per-group model too), and the model still scores every row."""
    record = EXPECTED_2[name]
    model = sqlnb.load(saved_2, name)
    _update(model, record["how"])
    counts = saved_2.execute(f'SELECT class, n FROM "{name}_class_stats" ORDER BY class').fetchall()
    assert [[label, n] for label, n in counts] == [
        [label, 2 * n] for label, n in record["class_counts"]]
    assert len(_scored(sqlnb.load(saved_2, name), record)[0]) == len(record["predictions"])


@pytest.mark.parametrize("name", [name for name, record in EXPECTED_2.items()
                                  if not record["how"].get("long")])
def test_a_schema_2_model_forgets_what_it_was_given_again(saved_2, name):
    """partial_fit then forget of the same rows: the model predicts what it did when written."""
    record = EXPECTED_2[name]
    model = sqlnb.load(saved_2, name)
    _update(model, record["how"])
    _update(model, record["how"], forget=True)
    predictions, proba = _scored(sqlnb.load(saved_2, name), record)
    assert predictions == record["predictions"]
    for row, want in zip(proba, record["proba"], strict=True):
        assert row == pytest.approx(want, abs=1e-9)
