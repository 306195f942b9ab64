"""Models that move: model.export(path) and sqlnb.import_model(con, path).

The oracle is the original model: the imported copy holds the same statistics to the last
bit (compared as float.hex), predicts the same labels with the same probabilities, and
grows, shrinks and merges exactly as the original does. Bad exports are refused with a
sqlnb error and leave the database as it was.
"""

from __future__ import annotations

import datetime
import json
import shutil

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import as_counts, load

import sqlnb
from sqlnb import portable
from sqlnb.errors import (
    ExportExistsError,
    IncompatibleModelError,
    ModelNotFoundError,
    NameConflictError,
    NotFittedError,
    TransactionError,
)

FAMILIES = ["gaussian", "multinomial", "complement", "bernoulli", "categorical", "poisson"]


def iris_table(con, family, name="iris"):
    """Iris (every 3rd row) as a table y, x0..x3, in the form the family takes."""
    X, y = load("iris")
    X, y = X[::3], y[::3]
    if family in ("multinomial", "complement", "categorical", "poisson"):
        X = as_counts(X)
    elif family == "bernoulli":
        X = X - X.mean(axis=0)
    frame = {f"x{i}": X[:, i] for i in range(X.shape[1])}
    frame["y"] = y
    con.register("frame", pd.DataFrame(frame))
    con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM frame")
    con.unregister("frame")
    return name


def bits(rows):
    """Rows with every float as its exact hexadecimal text: equal means equal to the bit."""
    return [tuple(v.hex() if isinstance(v, float) else v for v in row) for row in rows]


def stored(model, role):
    """A statistics table of ``model`` in its stored order."""
    table = sqlnb.engines.dialects.DUCKDB.ident(f"{model.name}_{role}")
    return bits(model.con.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall())


def learned(model, role):
    """A statistics table of ``model`` after more learning, in key order: an upsert may
    place its rows in any order (parallel aggregation), the values must be equal to the bit."""
    table = sqlnb.engines.dialects.DUCKDB.ident(f"{model.name}_{role}")
    return bits(model.con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall())


def relations(con):
    """Every table, view and macro of the database (what a refused import must not change)."""
    return sorted(con.execute(
        "SELECT table_name FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views() "
        "WHERE NOT internal UNION ALL SELECT function_name FROM duckdb_functions() "
        "WHERE function_type IN ('macro', 'table_macro') AND NOT internal").fetchall())


def moved(model, tmp_path, **kwargs):
    """``model`` exported and imported into a new in-memory database."""
    return sqlnb.import_model(duckdb.connect(), model.export(tmp_path / "export"), **kwargs)


def copy_table(src_con, dst_con, table):
    dst_con.register("rows", src_con.sql(f"SELECT * FROM {table}").to_arrow_table())
    dst_con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM rows")
    dst_con.unregister("rows")


# ---------------------------------------------------------------------- round trips
@pytest.mark.parametrize("family", FAMILIES)
def test_an_imported_model_has_the_same_statistics_and_predictions_to_the_last_bit(
        con, tmp_path, family):
    table = iris_table(con, family)
    model = sqlnb.NaiveBayes("iris", con=con, family=family).fit(table, "y")
    copy = moved(model, tmp_path)
    for role in ("class_stats", "features", "feature_stats"):
        assert stored(copy, role) == stored(model, role)
    copy_table(con, copy.con, table)
    assert copy.predict(table).fetchall() == model.predict(table).fetchall()
    assert bits(copy.predict_proba(table).fetchall()) == bits(model.predict_proba(table).fetchall())


def test_the_export_holds_the_statistics_and_a_manifest_not_the_parameters(con, tmp_path):
    model = sqlnb.NaiveBayes("iris", con=con).fit(iris_table(con, "gaussian"), "y")
    folder = model.export(tmp_path / "export")
    assert sorted(p.name for p in folder.iterdir()) == [
        "class_stats.parquet", "feature_stats.parquet", "features.parquet", "model.json"]
    manifest = json.loads((folder / "model.json").read_text())
    assert (manifest["format"], manifest["format_version"]) == ("sqlnb-model", 1)
    assert manifest["meta"]["family"] == "gaussian"
    assert manifest["meta"]["target_type"] == "BIGINT"
    assert {t["role"]: t["rows"] for t in manifest["tables"]} == {
        "class_stats": 3, "features": 4, "feature_stats": 12}


@pytest.mark.parametrize("labels, sql_type", [
    ([3, 7], "BIGINT"),
    (["no", "yes"], "VARCHAR"),
    ([False, True], "BOOLEAN"),
    ([0.5, 2.25], "DOUBLE"),
    ([datetime.date(2024, 1, 31), datetime.date(2024, 2, 29)], "DATE"),
    ([2**100, 2**101], "HUGEINT"),  # no Parquet counterpart: exported as text
    (["lo", "hi's"], "ENUM('lo', 'hi''s')"),  # text too, in the ENUM's own order
])
def test_labels_of_every_type_come_back_with_their_type(con, tmp_path, labels, sql_type):
    con.execute(f"CREATE TABLE t (y {sql_type}, x DOUBLE)")
    con.executemany("INSERT INTO t VALUES (?, ?)",
                    [[labels[i % 2], float(i % 2 * 5 + i)] for i in range(12)])
    model = sqlnb.NaiveBayes("m", con=con).fit("t", "y")
    copy = moved(model, tmp_path)
    assert copy.classes_ == model.classes_ == labels
    assert copy.meta["target_type"] == sql_type
    copy_table(con, copy.con, "t")
    assert copy.predict("t").fetchall() == model.predict("t").fetchall()


def test_a_per_group_model_moves_with_its_groups(con, tmp_path):
    table = iris_table(con, "gaussian")
    con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT *, x0 > 5.5 AS big FROM {table}")
    model = sqlnb.NaiveBayes("iris", con=con).fit(table, "y", features=["x1", "x2"],
                                                   group_by="big")
    copy = moved(model, tmp_path)
    assert stored(copy, "group_feature_stats") == stored(model, "group_feature_stats")
    copy_table(con, copy.con, table)
    assert bits(copy.predict_proba(table).fetchall()) == bits(model.predict_proba(table).fetchall())


def test_a_mixed_model_with_missing_values_moves_with_its_parts(con, tmp_path):
    con.execute("CREATE TABLE t AS SELECT i % 3 AS y, CASE WHEN i % 7 = 0 THEN NULL ELSE "
                "i * 0.5 + i % 3 END AS spend, ['a', 'b', 'c'][i % 3 + 1] AS plan, "
                "i % 2 = 0 AS autopay, i % 5 AS calls FROM range(60) r(i)")
    model = sqlnb.NaiveBayes("mix", con=con, family="auto", families={"calls": "poisson"})
    model.fit("t", "y")
    copy = moved(model, tmp_path)
    assert copy.families_ == model.families_
    for role in ("gaussian_stats", "categorical_stats", "bernoulli_stats", "poisson_stats"):
        assert stored(copy, role) == stored(model, role)
    copy_table(con, copy.con, "t")
    assert bits(copy.predict_proba("t").fetchall()) == bits(model.predict_proba("t").fetchall())


def test_a_per_group_mixed_model_moves_with_its_parts_and_groups(con, tmp_path):
    con.execute("CREATE TABLE t AS SELECT i % 3 AS y, i * 0.5 + i % 3 AS spend, "
                "['a', 'b', 'c'][i % 3 + 1] AS plan, i % 2 = 0 AS autopay, i % 4 AS store "
                "FROM range(90) r(i)")
    model = sqlnb.NaiveBayes("mix", con=con, family="auto")
    model.fit("t", "y", features=["spend", "plan", "autopay"], group_by="store")
    copy = moved(model, tmp_path)
    for role in ("class_stats", "gaussian_stats", "categorical_stats", "group_class_stats",
                 "group_gaussian_stats", "group_categorical_stats", "group_bernoulli_stats"):
        assert stored(copy, role) == stored(model, role)
    copy_table(con, copy.con, "t")
    assert bits(copy.predict_proba("t").fetchall()) == bits(model.predict_proba("t").fetchall())
    copy.forget(copy.con.sql("SELECT * FROM t WHERE store = 3"), "y")  # it keeps learning
    assert copy.con.execute("SELECT DISTINCT store FROM mix_group_class_stats "
                            "ORDER BY ALL").fetchall() == [(0,), (1,), (2,)]


def test_a_text_model_moves_with_its_vocabulary_and_analyzer(con, tmp_path):
    con.execute("CREATE TABLE mail AS SELECT * FROM (VALUES ('spam', 'cheap pills now'), "
                "('spam', 'cheap cheap offer'), ('ham', 'meeting at noon'), "
                "('ham', 'lunch at noon today')) v(label, body)")
    model = sqlnb.NaiveBayes("spam", con=con, family="multinomial")
    model.fit("mail", "label", text="body", ngram_range=(1, 2), tfidf=True)
    copy = moved(model, tmp_path)
    assert stored(copy, "vocabulary") == stored(model, "vocabulary")
    copy_table(con, copy.con, "mail")
    # a text model's scores are sums over a join, added up in whatever order DuckDB's
    # threads meet the terms: two runs of the same model differ in the last bits
    ours, theirs = copy.predict_proba("mail").fetchall(), model.predict_proba("mail").fetchall()
    assert [row[:2] for row in ours] == [row[:2] for row in theirs]
    np.testing.assert_allclose([row[2:] for row in ours], [row[2:] for row in theirs],
                               rtol=1e-12, atol=0)
    model.partial_fit("mail", "label", text="body")
    copy.partial_fit("mail", "label", text="body")
    assert learned(copy, "feature_stats") == learned(model, "feature_stats")


def test_a_long_input_model_moves_and_keeps_learning(con, tmp_path):
    con.execute("CREATE TABLE entries AS SELECT i // 3 AS document, 'w' || (i * 7 % 5) AS "
                "feature, CAST(1 + i % 2 AS DOUBLE) AS value FROM range(36) r(i)")
    con.execute("CREATE TABLE labels AS SELECT d AS document, d % 2 AS y FROM range(12) r(d)")
    model = sqlnb.NaiveBayes("long", con=con, family="multinomial")
    model.fit_long("entries", "y", labels="labels")
    copy = moved(model, tmp_path)
    for table in ("entries", "labels"):
        copy_table(con, copy.con, table)
    model.partial_fit_long("entries", "y", labels="labels")
    copy.partial_fit_long("entries", "y", labels="labels")
    assert learned(copy, "feature_stats") == learned(model, "feature_stats")
    assert learned(copy, "analyzer") == learned(model, "analyzer")


def test_an_imported_model_is_usable_from_plain_sql(con, tmp_path):
    model = sqlnb.NaiveBayes("iris", con=con).fit(iris_table(con, "gaussian"), "y")
    copy = moved(model, tmp_path, name="flowers")
    copy_table(con, copy.con, "iris")
    assert copy.con.execute("SELECT flowers_predict(t) FROM iris t").fetchall() == \
        con.execute("SELECT iris_predict(t) FROM iris t").fetchall()


def test_an_import_without_macros_scores_from_python_only(con, tmp_path):
    model = sqlnb.NaiveBayes("iris", con=con).fit(iris_table(con, "gaussian"), "y")
    copy = moved(model, tmp_path, sql_macros=False)
    assert copy.con.execute("SELECT function_name FROM duckdb_functions() "
                            "WHERE function_name LIKE 'iris%'").fetchall() == []
    copy_table(con, copy.con, "iris")
    assert copy.predict("iris").fetchall() == model.predict("iris").fetchall()


# ---------------------------------------------------------------------- after import
def test_partial_fit_and_forget_continue_an_imported_model_exactly(con, tmp_path):
    table = iris_table(con, "gaussian")
    con.execute(f"CREATE TABLE batch AS SELECT * FROM {table} WHERE x0 > 6")
    model = sqlnb.NaiveBayes("iris", con=con).partial_fit(table, "y")
    copy = moved(model, tmp_path)
    copy_table(con, copy.con, "batch")
    model.partial_fit("batch", "y")
    copy.partial_fit("batch", "y")
    assert learned(copy, "feature_stats") == learned(model, "feature_stats")
    model.forget("batch", "y")
    copy.forget("batch", "y")
    assert learned(copy, "feature_stats") == learned(model, "feature_stats")
    assert learned(copy, "class_stats") == learned(model, "class_stats")


def test_a_merge_with_an_imported_model_equals_the_merge_with_the_original(con, tmp_path):
    table = iris_table(con, "multinomial")
    con.execute(f"CREATE TABLE a AS SELECT * FROM {table} WHERE x0 < 2")
    con.execute(f"CREATE TABLE b AS SELECT * FROM {table} WHERE x0 >= 2")
    first = sqlnb.NaiveBayes("first", con=con, family="multinomial").fit("a", "y")
    second = sqlnb.NaiveBayes("second", con=con, family="multinomial").fit("b", "y")
    other = duckdb.connect()
    sqlnb.import_model(other, first.export(tmp_path / "first"))
    sqlnb.import_model(other, second.export(tmp_path / "second"))
    here = sqlnb.merge(con, ["first", "second"], into="both")
    there = sqlnb.merge(other, ["first", "second"], into="both")
    assert learned(there, "feature_stats") == learned(here, "feature_stats")


def test_a_model_imported_under_its_own_name_keeps_it(con, tmp_path):
    model = sqlnb.NaiveBayes("iris", con=con).fit(iris_table(con, "gaussian"), "y")
    copy = moved(model, tmp_path)
    assert copy.name == "iris"
    assert sqlnb.load(copy.con, "iris").classes_ == [0, 1, 2]


# ---------------------------------------------------------------------- export's rules
def test_export_of_an_unfitted_model_is_refused(con, tmp_path):
    with pytest.raises(NotFittedError):
        sqlnb.NaiveBayes("nothing", con=con).export(tmp_path / "export")
    assert list(tmp_path.iterdir()) == []


def test_export_replaces_an_earlier_export_only_when_asked(con, tmp_path):
    table = iris_table(con, "gaussian")
    model = sqlnb.NaiveBayes("iris", con=con).fit(table, "y")
    folder = model.export(tmp_path / "export")
    before = (folder / "model.json").read_text()
    with pytest.raises(ExportExistsError, match="overwrite=True"):
        model.export(folder)
    assert (folder / "model.json").read_text() == before
    model.partial_fit(table, "y")
    model.export(folder, overwrite=True)
    assert sqlnb.import_model(duckdb.connect(), folder).meta["params"] == model.meta["params"]
    assert json.loads((folder / "model.json").read_text())["tables"][0]["rows"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export"]  # nothing left aside


def test_export_never_replaces_a_directory_that_is_not_an_export(con, tmp_path):
    model = sqlnb.NaiveBayes("iris", con=con).fit(iris_table(con, "gaussian"), "y")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "notes.txt").write_text("mine")
    with pytest.raises(ExportExistsError, match="not a sqlnb model export"):
        model.export(tmp_path / "home", overwrite=True)
    assert (tmp_path / "home" / "notes.txt").read_text() == "mine"


def test_overwrite_refuses_an_export_directory_holding_other_files(con, tmp_path):
    """An export directory the user also keeps other things in: overwrite would replace
    only the export's own files, so it refuses and changes nothing."""
    table = iris_table(con, "gaussian")
    model = sqlnb.NaiveBayes("iris", con=con).fit(table, "y")
    folder = model.export(tmp_path / "export")
    (folder / "notes.txt").write_text("mine")
    (folder / "plots").mkdir()
    (folder / "plots" / "roc.png").write_bytes(b"png")
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    model.partial_fit(table, "y")
    with pytest.raises(ExportExistsError, match=r"'notes.txt', 'plots/'.*move those out"):
        model.export(folder, overwrite=True)
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before
    assert (folder / "plots" / "roc.png").read_bytes() == b"png"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export"]
    sqlnb.import_model(duckdb.connect(), folder)  # the earlier export, whole


def test_overwrite_replaces_exactly_the_files_of_the_earlier_export(con, tmp_path):
    """A per-group model's export replaced by a plain model's: the new directory holds the
    new export's files only, none of the earlier export's are left behind."""
    con.execute("CREATE TABLE g AS SELECT i % 2 AS y, i % 3 AS k, i * 1.5 AS x "
                "FROM range(30) r(i)")
    grouped = sqlnb.NaiveBayes("m", con=con).fit("g", "y", features=["x"], group_by="k")
    folder = grouped.export(tmp_path / "export")
    assert (folder / "group_columns.parquet").exists()
    plain = sqlnb.NaiveBayes("p", con=con).fit("g", "y", features=["x"])
    plain.export(folder, overwrite=True)
    manifest = json.loads((folder / "model.json").read_text())
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["model.json", *(t["file"] for t in manifest["tables"])])
    assert not (folder / "group_columns.parquet").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export"]


def test_overwrite_of_a_manifest_listing_paths_elsewhere_touches_nothing_there(con, tmp_path):
    """A manifest is data from elsewhere: a file it names outside the directory is not the
    export's, whatever it says."""
    model = sqlnb.NaiveBayes("iris", con=con).fit(iris_table(con, "gaussian"), "y")
    folder = model.export(tmp_path / "export")
    (tmp_path / "keep.txt").write_text("mine")
    manifest = json.loads((folder / "model.json").read_text())
    manifest["tables"].append({"role": "x", "file": "../keep.txt"})
    (folder / "model.json").write_text(json.dumps(manifest))
    model.export(folder, overwrite=True)
    assert (tmp_path / "keep.txt").read_text() == "mine"
    sqlnb.import_model(duckdb.connect(), folder)


def test_a_failed_export_leaves_no_directory_behind(con, tmp_path, monkeypatch):
    model = sqlnb.NaiveBayes("iris", con=con).fit(iris_table(con, "gaussian"), "y")

    def disk_full(file):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(portable, "_sha256", disk_full)
    with pytest.raises(OSError, match="No space left"):
        model.export(tmp_path / "export")
    assert list(tmp_path.iterdir()) == []


def test_paths_with_spaces_and_quotes_and_hostile_model_names_work(con, tmp_path):
    name = "it's a \"model\"; DROP TABLE users; --"
    con.execute("CREATE TABLE users AS SELECT 1 AS id")
    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i * 1.5 AS x FROM range(10) r(i)")
    model = sqlnb.NaiveBayes(name, con=con).fit("t", "y")
    folder = model.export(tmp_path / "a folder with 'quotes' and \"more\"" / "m")
    copy = sqlnb.import_model(con, folder, name=name + " copy")
    assert copy.predict("t").fetchall() == model.predict("t").fetchall()
    assert con.execute("SELECT id FROM users").fetchall() == [(1,)]


# ---------------------------------------------------------------------- import's refusals
@pytest.fixture
def export(tmp_path):
    """An export of a small Gaussian model, and a database that already has a table."""
    source = duckdb.connect()
    table = iris_table(source, "gaussian")
    folder = sqlnb.NaiveBayes("iris", con=source).fit(table, "y").export(tmp_path / "export")
    return folder


def edit_manifest(folder, change):
    manifest = json.loads((folder / "model.json").read_text())
    change(manifest)
    (folder / "model.json").write_text(json.dumps(manifest))


def refused(con, folder, error, match, **kwargs):
    """The import raises ``error`` and leaves the database exactly as it was."""
    before = relations(con)
    with pytest.raises(error, match=match):
        sqlnb.import_model(con, folder, **kwargs)
    assert relations(con) == before


def test_a_path_without_an_export_is_refused(con, tmp_path):
    refused(con, tmp_path, ModelNotFoundError, "no model export")


def test_a_taken_name_needs_replace(con, export):
    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i * 1.0 AS x0 FROM range(10) r(i)")
    mine = sqlnb.NaiveBayes("iris", con=con).fit("t", "y")
    refused(con, export, NameConflictError, "replace=True")
    assert mine.classes_ == [0, 1]
    assert sqlnb.import_model(con, export, replace=True).classes_ == [0, 1, 2]
    assert sqlnb.load(con, "iris").features_ == ["x0", "x1", "x2", "x3"]


def test_a_name_held_by_a_users_table_is_refused_even_with_replace(con, export):
    con.execute("CREATE TABLE iris_class_stats AS SELECT 'mine' AS note")
    refused(con, export, NameConflictError, "belong to another relation", replace=True)
    assert con.execute("SELECT note FROM iris_class_stats").fetchall() == [("mine",)]


def test_a_newer_format_is_refused(con, export):
    newer = portable.FORMAT_VERSION + 1
    edit_manifest(export, lambda m: m.update(format_version=newer))
    with pytest.raises(IncompatibleModelError, match=f"format version {newer}") as error:
        sqlnb.import_model(con, export)
    assert error.value.newer
    assert relations(con) == []


def test_a_missing_file_is_refused(con, export):
    (export / "feature_stats.parquet").unlink()
    refused(con, export, IncompatibleModelError, "'feature_stats.parquet' is missing")


def test_an_altered_file_is_refused(con, export):
    shutil.copy(export / "class_stats.parquet", export / "feature_stats.parquet")
    refused(con, export, IncompatibleModelError, "does not match its checksum")


def test_a_row_count_that_disagrees_with_the_manifest_is_refused(con, export):
    edit_manifest(export, lambda m: m["tables"][0].update(rows=4))
    refused(con, export, IncompatibleModelError, "has 3 rows, model.json says 4")


def test_an_unknown_family_is_refused(con, export):
    edit_manifest(export, lambda m: m["meta"].update(family="hypergeometric"))
    refused(con, export, IncompatibleModelError, "does not know")


def test_an_unknown_table_is_refused(con, export):
    def add_table(manifest):
        manifest["tables"].append({**manifest["tables"][0], "role": "secret_stats",
                                   "file": "secret_stats.parquet"})
    edit_manifest(export, add_table)
    refused(con, export, IncompatibleModelError, "does not know")


def test_sql_in_a_manifest_type_never_runs(con, export):
    con.execute("CREATE TABLE users AS SELECT 42 AS id")
    edit_manifest(export, lambda m: m["meta"].update(
        target_type="BIGINT PRIMARY KEY); DROP TABLE users; --"))
    refused(con, export, IncompatibleModelError, "does not know")
    assert con.execute("SELECT id FROM users").fetchall() == [(42,)]


def test_a_file_path_in_the_manifest_is_refused(con, export):
    edit_manifest(export, lambda m: m["tables"][0].update(file="../../etc/passwd"))
    refused(con, export, IncompatibleModelError, "damaged")


def test_rows_that_make_no_valid_table_are_refused_and_rolled_back(con, export):
    # a consistent export (checksum recomputed) whose class_stats has one class twice
    file = export / "class_stats.parquet"
    source = duckdb.connect()
    source.execute(f"COPY (SELECT * FROM read_parquet('{file}') UNION ALL "
                   f"SELECT * FROM read_parquet('{file}') LIMIT 4) TO '{file}' (FORMAT parquet)")

    def consistent(manifest):
        manifest["tables"][0].update(rows=4, sha256=portable._sha256(file))
    edit_manifest(export, consistent)
    refused(con, export, IncompatibleModelError, "do not make a valid class_stats table")


def test_a_replaced_text_model_leaves_none_of_its_tables(con, export):
    con.execute("CREATE TABLE mail AS SELECT * FROM (VALUES ('spam', 'cheap pills'), "
                "('ham', 'lunch at noon')) v(label, body)")
    sqlnb.NaiveBayes("iris", con=con, family="multinomial").fit("mail", "label", text="body")
    sqlnb.import_model(con, export, replace=True)
    assert con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall() == [
        ("iris_class_stats",), ("iris_feature_stats",), ("iris_features",), ("iris_meta",),
        ("mail",)]
    assert sqlnb.load(con, "iris").family.name == "gaussian"


def test_import_refuses_to_run_inside_the_callers_transaction(con, export):
    con.execute("CREATE TABLE pending (x INTEGER)")
    con.begin()
    con.execute("INSERT INTO pending VALUES (1)")
    with pytest.raises(TransactionError):
        sqlnb.import_model(con, export)
    con.commit()
    assert con.execute("SELECT x FROM pending").fetchall() == [(1,)]


def test_an_exported_model_predicts_like_scikit_learn(con, tmp_path):
    from sklearn.naive_bayes import GaussianNB

    X, y = load("iris")
    model = sqlnb.from_sklearn(GaussianNB().fit(X, y), con=con, name="sk")
    copy = moved(model, tmp_path)
    frame = pd.DataFrame(X, columns=copy.features_)
    predicted = np.asarray([r[-1] for r in copy.predict(frame).fetchall()])
    assert (predicted == GaussianNB().fit(X, y).predict(X)).all()
