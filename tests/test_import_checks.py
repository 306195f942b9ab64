"""Imports and restores run the checks a fit runs: an export or a pickled state that holds a
model no fit can produce (non-finite or negative statistics, tables that disagree, hostile
metadata) is refused with IncompatibleModelError and leaves the database as it was; what a
fit would write imports and scores to finite probabilities.

Each export here is made consistent after the change (checksums, row counts and column
types recomputed), so only the import's checks of the contents stand between it and the
database.
"""

from __future__ import annotations

import json
import pickle

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from catalog_state import catalog

import sqlnb
import sqlnb.sklearn as facade
from sqlnb import portable
from sqlnb.errors import IncompatibleModelError, InvalidParameterError

SCORED = "SELECT 1.5 AS x, 2::BIGINT AS c, 1::BIGINT AS g, 'w1 z2' AS body"


def fitted(kind, name="m"):
    """A small fitted model of ``kind`` in its own database."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT (i % 3)::VARCHAR AS y, i * 1.5 + i % 3 AS x, "
                "(i * 7) % 5 AS c, i % 2 AS g, 'w' || (i % 4) || ' z' || (i % 3) AS body "
                "FROM range(30) r(i)")
    model = sqlnb.NaiveBayes(name, con=con, family={"grouped": "gaussian", "text": "multinomial",
                                                    "grouped text": "multinomial",
                                                    "grouped auto": "auto"}.get(kind, kind))
    if kind == "grouped auto":
        return model.fit("t", "y", features=["x", "c", "body"], group_by=["g"])
    if kind == "grouped":
        return model.fit("t", "y", features=["x", "c"], group_by=["g"])
    if kind == "text":
        return model.fit("t", "y", text="body")
    if kind == "grouped text":
        return model.fit("t", "y", text="body", group_by="g")
    if kind == "auto":
        return model.fit("t", "y", features=["x", "c", "body"])
    return model.fit("t", "y", features=["c", "g"] if kind != "gaussian" else ["x", "c"])


def exported(tmp_path, kind, folder="export"):
    return fitted(kind).export(tmp_path / kind / folder)


def edit(folder, change):
    file = folder / "model.json"
    manifest = json.loads(file.read_text())
    change(manifest)
    file.write_text(json.dumps(manifest))


def rewrite(folder, role, select):
    """Replace the rows of ``role``'s file by ``select`` over them (a table ``t``), and make
    model.json agree with the new file (rows, checksum, native column types)."""
    file = folder / f"{role}.parquet"
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_parquet('{file}')")
    con.execute(f"COPY ({select}) TO '{file}' (FORMAT parquet)")
    described = con.execute(f"DESCRIBE SELECT * FROM read_parquet('{file}')").fetchall()
    rows = con.execute(f"SELECT count(*) FROM read_parquet('{file}')").fetchall()[0][0]

    def agree(manifest):
        table = next(t for t in manifest["tables"] if t["role"] == role)
        table["columns"] = [{"name": name, "type": sql_type, "stored_as": "native"}
                            for name, sql_type, *_ in described]
        table.update(rows=rows, sha256=portable._sha256(file))
    edit(folder, agree)



def refused(folder, match):
    """The import raises IncompatibleModelError and changes nothing in a database that
    already holds a table of the user's."""
    con = duckdb.connect()
    con.execute("CREATE TABLE users AS SELECT range AS id FROM range(3)")
    before = catalog(con)
    with pytest.raises(IncompatibleModelError, match=match):
        sqlnb.import_model(con, folder)
    assert catalog(con) == before


# ---------------------------------------------------------------------- statistics
NOT_FITTED = {
    "nan class weight": ("gaussian", "class_stats",
                         ("SELECT class, n, CASE WHEN class = '0' THEN 'nan'::DOUBLE "
                         "ELSE weight END AS weight FROM t"), "class_stats: weight"),
    "negative class weight": ("multinomial", "class_stats",
                              ("SELECT class, n, CASE WHEN class = '0' THEN -3 ELSE weight END "
                              "AS weight FROM t"), "class_stats: weight"),
    "negative class rows": ("gaussian", "class_stats",
                            ("SELECT class, CASE WHEN class = '0' THEN -3 ELSE n END AS n, "
                            "weight FROM t"), "class_stats: n"),
    "no class weighs anything": ("gaussian", "class_stats",
                                 "SELECT class, n, 0.0 AS weight FROM t", "no class weighs"),
    "infinite m2": ("gaussian", "feature_stats", "SELECT * REPLACE ('inf'::DOUBLE AS m2) FROM t",
                    "feature_stats: m2"),
    "negative m2": ("gaussian", "feature_stats", "SELECT * REPLACE (-1.0 AS m2) FROM t",
                    "feature_stats: m2"),
    "nan mean": ("gaussian", "feature_stats", "SELECT * REPLACE ('nan'::DOUBLE AS mean) FROM t",
                 "feature_stats: mean"),
    "negative count": ("multinomial", "feature_stats",
                       "SELECT * REPLACE (-1.0 AS count) FROM t", "feature_stats: count"),
    "nan count": ("complement", "feature_stats",
                  "SELECT * REPLACE ('nan'::DOUBLE AS count) FROM t", "feature_stats: count"),
    "negative category count": ("categorical", "feature_stats",
                                "SELECT * REPLACE (-1.0 AS count) FROM t", "feature_stats: count"),
    "bernoulli count above the weight": ("bernoulli", "feature_stats",
                                         "SELECT * REPLACE (count + 100 AS count) FROM t",
                                         "counts more rows than the class weighs"),
    "nan alpha": ("multinomial", "features", "SELECT * REPLACE ('nan'::DOUBLE AS alpha) FROM t",
                  "alpha"),
    "infinite alpha": ("categorical", "features",
                       "SELECT * REPLACE ('inf'::DOUBLE AS alpha) FROM t", "alpha"),
    "missing alpha": ("poisson", "features", "SELECT * REPLACE (NULL::DOUBLE AS alpha) FROM t",
                      "alpha"),
    "a class without feature statistics": ("gaussian", "feature_stats",
                                           "SELECT * FROM t WHERE class <> '1'",
                                           "lacks the rows of some"),
    "a class without counts": ("multinomial", "feature_stats",
                               "SELECT * FROM t WHERE class <> '1'", "lacks the rows of some"),
    "statistics of an unknown class": ("categorical", "feature_stats",
                                       ("SELECT * FROM t UNION ALL (SELECT * REPLACE ('9' AS class) "
                                       "FROM t LIMIT 1)"), "unknown classes"),
    "a category code beyond max_categories": ("categorical", "feature_stats",
                                              ("SELECT * REPLACE (CASE WHEN category = '0' "
                                              "THEN '10000000' ELSE category END AS category) "
                                              "FROM t"),
                                              "integer category codes"),
    "a category code that is no number": ("categorical", "feature_stats",
                                          ("SELECT * REPLACE (CASE WHEN category = '0' "
                                          "THEN 'x' ELSE category END AS category) FROM t"),
                                          "integer category codes"),
    "a group value without statistics": ("grouped", "group_feature_stats",
                                         "SELECT * FROM t WHERE g <> 1",
                                         "group_feature_stats: has rows"),
    "negative group weight": ("grouped", "group_class_stats",
                              "SELECT * REPLACE (-weight AS weight) FROM t",
                              "group_class_stats: weight"),
    "a text class without term counts": ("text", "feature_stats",
                                         "SELECT * FROM t WHERE class <> '2'",
                                         "lacks the rows of some"),
    "negative idf": ("text", "vocabulary", "SELECT * REPLACE (-idf AS idf) FROM t",
                     "vocabulary: idf"),
    "a group's mixed part without a group": ("grouped auto", "group_gaussian_stats",
                                              "SELECT * FROM t WHERE g <> 1",
                                              "group_gaussian_stats: has rows"),
    "a group's mixed part with a NaN mean": ("grouped auto", "group_gaussian_stats",
                                             "SELECT * REPLACE ('NaN'::DOUBLE AS mean) FROM t",
                                             "group_gaussian_stats: mean"),
    "a group model's negative count": ("grouped text", "text_group_feature_stats",
                                       "SELECT * REPLACE (-1.0 AS count) FROM t",
                                       "feature_stats: count"),
    "a group model's negative idf": ("grouped text", "text_group_vocabulary",
                                     "SELECT * REPLACE (-idf AS idf) FROM t", "vocabulary: idf"),
    "a group model's class without its terms": (
        "grouped text", "text_group_feature_stats",
        "SELECT * FROM t WHERE NOT (group_index = 1 AND class = '0')", "has rows"),
    "a mixed part without a class": ("auto", "gaussian_stats",
                                     "SELECT * FROM t WHERE class <> '0'",
                                     "gaussian_stats: has rows"),
}


@pytest.mark.parametrize("case", NOT_FITTED)
def test_statistics_no_fit_produces_are_refused(tmp_path, case):
    kind, role, select, match = NOT_FITTED[case]
    folder = exported(tmp_path, kind)
    rewrite(folder, role, select)
    refused(folder, match)


def test_a_feature_list_that_disagrees_with_the_features_table_is_refused(tmp_path):
    folder = exported(tmp_path, "gaussian")
    edit(folder, lambda m: m["meta"].update(features=[{"name": "x", "type": "DECIMAL(18,1)"}]))
    refused(folder, "the features table lists 'x', 'c'")


def test_a_feature_type_that_disagrees_with_the_features_table_is_refused(tmp_path):
    folder = exported(tmp_path, "multinomial")
    edit(folder, lambda m: m["meta"]["features"][0].update(type="DOUBLE"))
    refused(folder, "has type BIGINT in the features table")


def test_a_categorical_coding_no_fit_writes_is_refused(tmp_path):
    folder = exported(tmp_path, "categorical")
    rewrite(folder, "features", "SELECT * REPLACE ('value' AS coding) FROM t")
    refused(folder, "coding 'value'")


# ---------------------------------------------------------------------- manifests
def write_text(folder, change):
    file = folder / "model.json"
    file.write_text(change(file.read_text()))


HOSTILE_MANIFESTS = {
    "params naming con": (lambda m: m["meta"]["params"].update(con=None), "no hyperparameter con"),
    "params naming name": (lambda m: m["meta"]["params"].update(name="x"), "hyperparameters"),
    "params naming family": (lambda m: m["meta"]["params"].update(family="poisson"),
                             "no hyperparameter family"),
    "params naming progress": (lambda m: m["meta"]["params"].update(progress=True),
                               "no hyperparameter progress"),
    "params naming sql_macros": (lambda m: m["meta"]["params"].update(sql_macros=False),
                                 "no hyperparameter sql_macros"),
    "a text origin": (lambda m: m["meta"]["features"][0].update(origin="abc"), "origin"),
    "a list origin": (lambda m: m["meta"]["features"][0].update(origin=[1]), "origin"),
    "a NUL in the model's name": (lambda m: m["meta"].update(model="a\x00b"), "damaged"),
    "a NUL in the target": (lambda m: m["meta"].update(target="a\x00b"), "damaged"),
    "a NUL in a feature": (lambda m: m["meta"]["features"][0].update(name="x\x00"), "damaged"),
    "a NUL in the weight": (lambda m: m["meta"].update(weight="w\x00"), "damaged"),
    "a NUL in a column": (lambda m: m["tables"][0]["columns"][0].update(name="cl\x00ss"),
                          "damaged"),
    "a feature twice": (lambda m: m["meta"]["features"].append(m["meta"]["features"][0]),
                        "damaged"),
    "no features": (lambda m: m["meta"].update(features=[]), "damaged"),
    "an unknown feature key": (lambda m: m["meta"]["features"][0].update(sql="DROP"),
                               "damaged"),
    "format version 0": (lambda m: m.update(format_version=0), "format_version"),
    "format version -1": (lambda m: m.update(format_version=-1), "format_version"),
    "a boolean row count": (lambda m: m["tables"][0].update(rows=True), "damaged"),
    "a target type unlike the class column's": (
        lambda m: m["meta"].update(target_type="BIGINT"),
        "class column of 'class_stats.parquet' has type VARCHAR"),
    "an infinite var_smoothing": (lambda m: m["meta"]["params"].update(var_smoothing=1e400),
                                  "var_smoothing"),
    "nested priors": (lambda m: m["meta"]["params"].update(priors=[[0.5, 0.5]]), "priors"),
}


@pytest.mark.parametrize("case", HOSTILE_MANIFESTS)
def test_hostile_manifests_are_refused(tmp_path, case):
    change, match = HOSTILE_MANIFESTS[case]
    folder = exported(tmp_path, "gaussian")
    edit(folder, change)
    refused(folder, match)


def test_an_origin_too_large_for_a_float_is_refused(tmp_path):
    folder = exported(tmp_path, "gaussian")
    edit(folder, lambda m: m["meta"]["features"][0].update(origin=12345.0))
    write_text(folder, lambda text: text.replace("12345.0", "1e400"))
    refused(folder, "origin")


def test_a_deeply_nested_manifest_is_refused(tmp_path):
    folder = exported(tmp_path, "gaussian")
    depth = 100_000
    write_text(folder, lambda text: text.rstrip()[:-1] + ', "extra": ' + "[" * depth
               + "]" * depth + "}")
    refused(folder, "not readable JSON")


@pytest.mark.parametrize("select, match", [
    ("SELECT * FROM t UNION ALL SELECT 1, name, type FROM t", "name a column twice"),
    ("SELECT * REPLACE (upper(name) AS name) FROM t UNION ALL SELECT 1, name, type FROM t",
     "name a column twice"),
    ("SELECT * REPLACE ('class' AS name) FROM t", "not valid"),
    ("SELECT * REPLACE ('x' AS name) FROM t", "not valid"),
    ("SELECT * REPLACE (5 AS position) FROM t", "does not know"),
    ("SELECT * REPLACE ('BLOB; DROP TABLE users' AS type) FROM t", "does not know"),
])
def test_group_columns_are_checked_as_group_by_is(tmp_path, select, match):
    folder = exported(tmp_path, "grouped")
    rewrite(folder, "group_columns", select)
    refused(folder, match)


def test_a_group_column_of_a_type_that_cannot_key_the_groups_is_refused(tmp_path, con):
    # a BLOB group value cannot be written as a SQL literal: refused at fit and at import
    con.execute("CREATE TABLE t AS SELECT (i % 2)::VARCHAR AS y, i * 1.5 AS x, "
                "('g' || (i % 2))::BLOB AS g FROM range(20) r(i)")
    with pytest.raises(sqlnb.errors.InvalidDataError, match="group column 'g' has type BLOB"):
        sqlnb.NaiveBayes("m", con=con).fit("t", "y", features=["x"], group_by="g")
    folder = exported(tmp_path, "grouped")
    rewrite(folder, "group_columns", "SELECT position, name, 'BLOB' AS type FROM t")
    for role in ("group_class_stats", "group_feature_stats"):  # BLOB is stored as its text
        rewrite(folder, role, "SELECT * REPLACE ('g' || g AS g) FROM t")

    def blob_groups(manifest):
        for table in manifest["tables"]:
            for column in table["columns"]:
                if column["name"] == "g":
                    column.update(type="BLOB", stored_as="text")
    edit(folder, blob_groups)
    refused(folder, "group column 'g' has type BLOB")


@pytest.mark.parametrize("role, select, match", [
    ("text_groups", "SELECT * REPLACE (group_index + 5 AS group_index) FROM t",
     "does not list the groups"),
    ("text_groups", "SELECT * REPLACE (-1 - group_index AS group_index) FROM t",
     "not distinct whole numbers"),
    ("text_groups", ("SELECT * FROM t UNION ALL "
                     "SELECT * REPLACE (group_index + 2 AS group_index) FROM t"), "a group twice"),
    ("text_groups", "SELECT * REPLACE (NULL::BIGINT AS g) FROM t", "NULL group values"),
    ("text_groups", "SELECT group_index, g AS c0 FROM t", "not valid"),
    ("text_groups", "SELECT g, group_index FROM t", "does not start with the column"),
    ("text_group_features", "SELECT * EXCLUDE (group_index) FROM t",
     "does not start with the column"),
    ("text_group_vocabulary", "SELECT * FROM t WHERE group_index <> 1",
     "does not list the groups"),
    ("text_group_analyzer", "SELECT * FROM t UNION ALL SELECT * FROM t", "one analyzer row"),
    ("text_group_analyzer", ("SELECT * REPLACE (replace(options, '\"lowercase\": true', "
                             "'\"lowercase\": false') AS options) FROM t"), "text settings"),
])
def test_the_groups_of_a_per_group_text_model_are_checked(tmp_path, role, select, match):
    folder = exported(tmp_path, "grouped text")
    assert json.loads((folder / "model.json").read_text())["format_version"] == 2
    rewrite(folder, role, select)
    refused(folder, match)


def test_a_group_model_with_a_class_the_pooled_model_lacks_is_refused(tmp_path):
    folder = exported(tmp_path, "grouped text")
    for role in ("text_group_class_stats", "text_group_feature_stats"):
        rewrite(folder, role, "SELECT * REPLACE (CASE WHEN group_index = 1 AND class = '0' "
                "THEN 'other' ELSE class END AS class) FROM t")
    refused(folder, "'other'.* which the pooled model lacks")


def test_a_per_group_text_export_without_a_group_file_is_refused(tmp_path):
    folder = exported(tmp_path, "grouped text")
    edit(folder, lambda m: m.update(tables=[t for t in m["tables"]
                                            if t["role"] != "text_group_analyzer"]))
    refused(folder, "make no model this sqlnb knows")
    assert json.loads((exported(tmp_path, "text", "plain") / "model.json").read_text())[
        "format_version"] == 1  # (what version 1 describes stays version 1)


@pytest.mark.parametrize("ngram", ["[1, 11]", "[1, 1000000]", "[0, 1]", "[2, 1]"])
def test_an_analyzer_with_an_absurd_ngram_range_is_refused(tmp_path, ngram):
    folder = exported(tmp_path, "text")
    rewrite(folder, "analyzer", "SELECT input, replace(options, '\"ngram_range\": [1, 1]', "
            f"'\"ngram_range\": {ngram}') AS options, n_documents FROM t")
    refused(folder, "ngram_range")


def test_an_export_in_a_directory_with_glob_characters_reads_its_own_files(tmp_path):
    # "run[1]" as a glob pattern matches "run1": the import must read the files of run[1]
    gaussian = fitted("gaussian")
    ours = gaussian.export(tmp_path / "run[1]")
    fitted("multinomial").export(tmp_path / "run1")
    copy = sqlnb.import_model(duckdb.connect(), ours)
    assert copy.family.name == "gaussian"
    row = SCORED
    assert copy.predict_proba(copy.con.sql(row)).fetchall() == \
        gaussian.predict_proba(gaussian.con.sql(row)).fetchall()


@pytest.mark.parametrize("kind", ["gaussian", "multinomial", "bernoulli", "categorical",
                                  "poisson", "complement", "grouped", "text", "auto",
                                  "grouped auto", "grouped text"])
def test_every_kind_of_fitted_model_still_imports_and_scores_finitely(tmp_path, kind):
    model = fitted(kind)
    copy = sqlnb.import_model(duckdb.connect(), model.export(tmp_path / "export"))
    ours = copy.predict_proba(copy.con.sql(SCORED)).fetchall()
    theirs = model.predict_proba(model.con.sql(SCORED)).fetchall()
    assert ours == theirs
    assert all(np.isfinite(ours[0][-len(copy.classes_):]))


# ---------------------------------------------------------------------- pickles
def restored(change):
    """A fitted sqlnb.sklearn GaussianNB's pickled state, changed, unpickled."""
    X, y = np.array([[1.0, 2], [2, 3], [5, 1], [6, 0]]), np.array([0, 0, 1, 1])
    state = facade.GaussianNB().fit(X, y).__getstate__()
    statistics = state["_statistics"]
    state["_statistics"] = {"meta": dict(statistics["meta"]), "tables": dict(statistics["tables"])}
    change(state["_statistics"])
    estimator = facade.GaussianNB.__new__(facade.GaussianNB)
    estimator.__setstate__(pickle.loads(pickle.dumps(state)))
    return estimator


def nan_weight(state):
    table = state["tables"]["class_stats"]
    state["tables"]["class_stats"] = table.set_column(
        2, "weight", pa.array([float("nan"), 2.0]))


def without_m2(state):
    state["tables"]["feature_stats"] = state["tables"]["feature_stats"].drop(["m2"])


HOSTILE_STATES = {
    "sql in the target type": (
        lambda s: s["meta"].update(target_type="BIGINT PRIMARY KEY); CREATE TABLE t(x INT); --"),
        "does not know"),
    "a target type unlike the labels'": (lambda s: s["meta"].update(target_type="VARCHAR"),
                                         "type BIGINT, its metadata says VARCHAR"),
    "a NaN class weight": (nan_weight, "class_stats: weight"),
    "params naming con": (lambda s: s["meta"].update(params={"con": None}), "con"),
    "features unlike the tables": (
        lambda s: s["meta"].update(features=[{"name": "f0", "type": "DOUBLE"}]),
        "the features table lists"),
    "a statistics column missing": (without_m2, "cannot be restored"),
    "no tables": (lambda s: s.update(tables=None), "no metadata and statistics tables"),
}


@pytest.mark.parametrize("case", HOSTILE_STATES)
def test_an_unpickled_estimator_is_checked_as_an_import_is(case):
    change, match = HOSTILE_STATES[case]
    with pytest.raises(IncompatibleModelError, match=match):
        restored(change)


def test_an_unchanged_pickle_still_restores():
    X = np.array([[1.0, 2], [2, 3], [5, 1], [6, 0]])
    assert restored(lambda state: None).predict(X).tolist() == [0, 0, 1, 1]


def test_restore_refuses_sql_in_the_target_type_without_running_it(con):
    model = sqlnb.NaiveBayes("m", con=con).fit(con.sql(
        "SELECT i % 2 AS y, i * 1.0 AS x FROM range(10) r(i)"), "y")
    state = sqlnb.exchange.statistics(model)
    state["meta"]["target_type"] = "BIGINT); CREATE TABLE pwned (x INT); --"
    before = catalog(con)
    with pytest.raises(IncompatibleModelError):
        sqlnb.exchange.restore(con, "copy", state)
    assert catalog(con) == before


# ---------------------------------------------------------------------- hyperparameters
@pytest.mark.parametrize("family, params", [
    ("multinomial", {"alpha": float("inf")}),
    ("gaussian", {"var_smoothing": float("inf")}),
    ("auto", {"alpha": float("inf")}),
])
def test_infinite_hyperparameters_are_refused_as_outside_their_range(family, params):
    with pytest.raises(InvalidParameterError, match="inf\\)"):
        sqlnb.NaiveBayes("m", family=family, **params)
