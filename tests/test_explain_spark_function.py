"""The Spark SQL function ``<name>_explain(struct(...))`` of models that live on Spark.

The oracle is ``model.explain`` on the same model and rows (itself held to DuckDB's
figures, tests/test_explain.py): the function's (row, class, feature, log_likelihood,
log_prior) rows equal its rows to 1e-9, and per row and class the log prior plus the
features' log-likelihoods is ``predict_joint_log_proba``'s. Every test shares the
session-scoped ``spark`` fixture and fits a tiny table.
"""

from __future__ import annotations

import math

import pytest

import sqlnb

pytest.importorskip("pyspark.sql")

# 18 rows, ids in source order (explain's row_number); a label and a feature name that
# need escaping; a NULL and a NaN (missing values, which add nothing)
ROWS = [(i, float(i % 4) + 0.5 * (i % 3), float((i * 7) % 5), ["lo", "mid", "it's"][i % 3],
         ["a", "b\\c", "a"][i % 2 + (i % 5 == 0)], ["yes", "no 'x'"][i % 2 or i % 7 == 0])
        for i in range(18)]
ROWS[3] = (3, None, 2.0, "lo", "a", ROWS[3][5])
ROWS[8] = (8, 1.5, float("nan"), "mid", "b\\c", ROWS[8][5])
SCHEMA = "id bigint, `size cm` double, spend double, plan string, tier string, y string"


def _function_rows(spark, frame, name: str, fields: str) -> list[tuple]:
    frame.createOrReplaceTempView("explained_rows")
    try:
        # (Spark takes no SQL function inside a generator: the array is a column first)
        rows = spark.sql(
            f"SELECT r.id, e.* FROM (SELECT id, {name}_explain(struct({fields})) AS terms "
            f"FROM explained_rows) r LATERAL VIEW inline(r.terms) e").collect()
    finally:
        spark.catalog.dropTempView("explained_rows")
    return sorted((r[0], str(r[1]), r[2], r[3], r[4]) for r in rows)


def _assert_as_explain(spark, model, frame, fields: str) -> None:
    got = _function_rows(spark, frame, model.name, fields)
    ids = [r.id for r in frame.collect()]  # explain numbers the rows in source order
    expected = sorted((ids[r.row_number], str(r["class"]), r.feature, r.log_likelihood,
                       r.log_prior) for r in model.explain(frame).collect())
    assert len(got) == len(expected) == frame.count() * len(model.classes_) * len(
        model.features_)
    for g, e in zip(got, expected):
        assert g[:3] == e[:3]
        assert math.isclose(g[3], e[3], rel_tol=0, abs_tol=1e-9), (g, e)
        assert math.isclose(g[4], e[4], rel_tol=0, abs_tol=1e-9), (g, e)
    # log prior + the features' log-likelihoods = the joint log-likelihood
    joint = model.predict_joint_log_proba(frame).orderBy("id").collect()
    for row in joint:
        for label in model.classes_:
            terms = [g for g in got if g[0] == row.id and g[1] == str(label)]
            assert math.isclose(terms[0][4] + sum(t[3] for t in terms),
                                row[f"jll_{label}"], rel_tol=0, abs_tol=1e-9)


@pytest.mark.parametrize("family, features, fields", [
    ("gaussian", ["size cm", "spend"], "`size cm`, spend"),
    ("multinomial", ["size cm", "spend"], "`size cm`, spend"),
    ("categorical", ["plan", "tier"], "plan, tier"),
    ("auto", ["size cm", "spend", "plan", "tier"], "`size cm`, spend, plan, tier"),
])
def test_explain_function_rows_are_explains(spark, family, features, fields):
    frame = spark.createDataFrame(ROWS, SCHEMA)
    name = f"xf_{family}"
    fit_rows = frame.where("id < 12")
    if family == "multinomial":  # counts: no missing values
        frame = frame.where("id NOT IN (3, 8)")
        fit_rows = frame.where("id < 12")
    model = sqlnb.NaiveBayes(name, con=spark, family=family)
    try:
        model.fit(fit_rows, "y", features=features)
        _assert_as_explain(spark, model, frame, fields)
        # an update that keeps the classes and features writes the function again
        before = _function_rows(spark, frame, name, fields)
        model.partial_fit(frame.where("id >= 12"), "y")
        after = _function_rows(spark, frame, name, fields)
        assert after != before
        _assert_as_explain(spark, model, frame, fields)
    finally:
        model.drop()
    functions = {f.name.lower() for f in spark.catalog.listFunctions()}
    assert f"{name}_explain" not in functions
    assert f"{name}_predict" not in functions


def test_a_per_group_model_has_scoring_functions_but_no_explain_function(spark):
    # a row's explanation comes from its group's model: a refit by group drops the explain
    # function the earlier fit of the name wrote, and writes the scoring functions, which
    # take the group column too and answer as predict (create_macros writes them again)
    frame = spark.createDataFrame(ROWS, SCHEMA)
    model = sqlnb.NaiveBayes("xf_grouped", con=spark, family="gaussian")
    try:
        model.fit(frame, "y", features=["size cm", "spend"])
        assert "xf_grouped_explain" in {f.name.lower() for f in spark.catalog.listFunctions()}
        model.fit(frame, "y", features=["size cm", "spend"], group_by="tier")
        model.create_macros()
        functions = {f.name.lower() for f in spark.catalog.listFunctions()}
        assert "xf_grouped_explain" not in functions
        assert {f"xf_grouped_{role}" for role in
                ("joint_log_likelihood", "predict", "predict_proba")} <= functions
        frame.createOrReplaceTempView("xf_rows")
        got = [r[0] for r in spark.sql(
            "SELECT xf_grouped_predict(struct(`size cm`, spend, tier)) FROM xf_rows "
            "ORDER BY id").collect()]
        spark.catalog.dropTempView("xf_rows")
        assert got == [r.prediction for r in model.predict(frame).orderBy("id").collect()]
    finally:
        model.drop()


def test_explain_function_with_hostile_names(spark):
    # a feature name Spark must backtick (with a quote, a backslash and a comment opener)
    # and labels with a quote, a backslash, a line break and a non-ASCII character
    colour = "we`ird 'col' \\ -- x"
    labels = ["it's", "back\\slash\nbreak", "❄ ends with \\"]
    rows = [(i, None if i % 5 == 0 else float(i % 4), ["red", "gr'een", None][i % 3],
             labels[i % 3 if i % 4 else 0]) for i in range(24)]
    frame = spark.createDataFrame(rows, ["id", "size", colour, "y"]).coalesce(1)
    model = sqlnb.NaiveBayes("xf_hostile", con=spark, family="auto")
    try:
        model.fit(frame, "y", features=["size", colour])
        assert model.families_ == {"size": "gaussian", colour: "categorical"}
        _assert_as_explain(spark, model, frame, "size, `we``ird 'col' \\ -- x`")
    finally:
        model.drop()
