"""Scoring functions of models that live on Spark: SQL functions taking a STRUCT.

The oracle is the facade on the same model: ``predict`` labels identical,
``predict_proba`` / ``predict_log_proba`` within 1e-9; for per-group and text models, the
same model fitted on DuckDB, whose scoring macros answer within 1e-9. Every test shares the session-scoped
``spark`` fixture and fits a tiny table.
"""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlnb
from sqlnb.errors import NameConflictError

pytest.importorskip("pyspark.sql")

# 16 rows; the labels need escaping in a Spark literal, a feature name needs backticks
ROWS = [(i, float(i % 4) + 0.5 * (i % 3), float((i * 7) % 5),
         ["it's", "back\\slash"][i % 2 or i % 3 == 0]) for i in range(16)]
SCHEMA = "id bigint, `size cm` double, spend double, y string"
CALL = "struct(`size cm`, spend)"


def _functions(spark, frame, name: str, fields: str = CALL) -> list:
    frame.createOrReplaceTempView("scored_rows")
    try:
        return spark.sql(
            f"SELECT id, {name}_predict({fields}) AS label, {name}_predict_proba({fields}) AS p, "
            f"{name}_predict_log_proba({fields}) AS lp FROM scored_rows ORDER BY id").collect()
    finally:
        spark.catalog.dropTempView("scored_rows")


def _assert_same_answers(model, frame, got) -> None:
    expected = model.predict_proba(frame).orderBy("id").collect()
    labels = [r.prediction for r in model.predict(frame).orderBy("id").collect()]
    assert [r.label for r in got] == labels
    for g, e in zip(got, expected):
        proba, log_proba, oracle = g.p.asDict(), g.lp.asDict(), e.asDict()
        assert sorted(proba) == sorted(log_proba) == sorted(model.classes_)
        for label in model.classes_:
            assert math.isclose(proba[label], oracle[f"proba_{label}"], abs_tol=1e-9)
            assert math.isclose(math.exp(log_proba[label]), oracle[f"proba_{label}"],
                                abs_tol=1e-9)


def test_scoring_functions_answer_as_the_facade_and_follow_partial_fit(spark):
    frame = spark.createDataFrame(ROWS, SCHEMA)
    model = sqlnb.NaiveBayes("sf_gauss", con=spark, family="gaussian").fit(
        frame.where("id < 12"), "y", features=["size cm", "spend"])
    _assert_same_answers(model, frame, _functions(spark, frame, "sf_gauss"))
    before = [r.p for r in _functions(spark, frame, "sf_gauss")]

    model.partial_fit(frame.where("id >= 12"), "y")
    after = _functions(spark, frame, "sf_gauss")
    assert [r.p for r in after] != before  # the functions were rewritten, not stale
    _assert_same_answers(model, frame, after)


def test_scoring_functions_of_a_mixed_model_with_missing_values_and_hostile_names(spark):
    colour = "we`ird 'col' \\ -- x"  # a categorical feature
    labels = ["it's", "back\\slash\nbreak", "❄ ends with \\"]
    rows = [(i, None if i % 5 == 0 else float(i % 4), float("nan") if i % 7 == 3 else i % 3 * 1.0,
             ["red", "green", None][i % 3], labels[i % 3 if i % 4 else 0]) for i in range(24)]
    frame = spark.createDataFrame(rows, ["id", "size", "spend", colour, "y"])
    model = sqlnb.NaiveBayes("sf_mixed", con=spark, family="auto").fit(
        frame, "y", features=["size", "spend", colour])
    assert model.families_ == {"size": "gaussian", "spend": "gaussian", colour: "categorical"}
    got = _functions(spark, frame, "sf_mixed", "struct(size, spend, `we``ird 'col' \\ -- x`)")
    _assert_same_answers(model, frame, got)


def test_scoring_functions_are_owned_by_the_model(spark):
    frame = spark.createDataFrame(ROWS, SCHEMA)
    spark.sql("CREATE OR REPLACE FUNCTION sf_taken_predict(x DOUBLE) RETURNS DOUBLE RETURN x")
    with pytest.raises(NameConflictError, match="sf_taken_predict"):
        sqlnb.NaiveBayes("sf_taken", con=spark).fit(frame, "y", features=["spend"])
    assert spark.sql("SELECT sf_taken_predict(2D)").first()[0] == 2.0  # left alone

    model = sqlnb.NaiveBayes("sf_dropped", con=spark).fit(frame, "y", features=["spend"])
    spark.sql("DROP FUNCTION sf_dropped_predict")
    model.create_macros()  # recreates the functions
    assert spark.catalog.functionExists("sf_dropped_predict")
    model.drop()
    assert not [f for f in ("joint_log_likelihood", "predict", "predict_proba",
                            "predict_log_proba") if spark.catalog.functionExists(f"sf_dropped_{f}")]


# ---------------------------------------------------------------------- per-group and text
GROUP = "sh`op 'g' \\ -- x"  # a group column name that needs backticks and escapes
TEXT = "bo`dy 't'"  # a text column name too


def _against_duckdb(spark, frame, test, name: str, duck_model, fields: str) -> None:
    """The functions of the Spark model ``name`` over ``test`` against the DuckDB model's
    macros over the same rows: labels identical, joint log-likelihoods and probabilities
    within 1e-9 (NULL where DuckDB's are NULL: a class the row's group never saw)."""
    spark.createDataFrame(test).createOrReplaceTempView("scored_rows")
    try:
        got = spark.sql(
            f"SELECT id, {name}_predict({fields}) AS label, {name}_predict_proba({fields}) AS p, "
            f"{name}_predict_log_proba({fields}) AS lp, "
            f"{name}_joint_log_likelihood({fields}) AS j FROM scored_rows ORDER BY id").collect()
    finally:
        spark.catalog.dropTempView("scored_rows")
    con = duck_model.con
    con.register("scored_rows", test)
    d = duck_model.name
    want = con.sql(f"SELECT id, {d}_predict(t), {d}_predict_proba(t), {d}_predict_log_proba(t), "
                   f"{d}_joint_log_likelihood(t) FROM scored_rows t ORDER BY id").fetchall()
    assert len(got) == len(want) == len(test)
    assert [r.label for r in got] == [w[1] for w in want]
    for g, w in zip(got, want):
        for spark_values, duck_values in ((list(g.p.asDict().values()), list(w[2].values())),
                                          (list(g.lp.asDict().values()), list(w[3].values())),
                                          (list(g.j), list(w[4]))):
            assert [v is None for v in spark_values] == [v is None for v in duck_values]
            for s, e in zip(spark_values, duck_values):
                if e is not None:
                    assert s == e or math.isclose(s, e, rel_tol=0, abs_tol=1e-9), (g, w)


def _grouped_frames():
    rng = np.random.default_rng(3)
    n = 60
    frame = pd.DataFrame({
        "id": range(n), "size": rng.normal(size=n).round(3),
        "colour": rng.choice(["red", "green", "blue"], n),
        GROUP: rng.choice(["a", "b"], n), "y": rng.choice(["it's", "no", "yes"], n)})
    frame.loc[(frame[GROUP] == "a") & (frame["y"] == "yes"), "y"] = "no"  # a never sees yes
    test = frame.head(10).copy()
    test.loc[0:2, GROUP] = "unseen"
    test.loc[3, GROUP] = None
    return frame, test


@pytest.mark.parametrize("family", ["gaussian", "auto"])
def test_per_group_functions_pick_the_rows_group_as_duckdbs_macros(spark, family):
    """A per-group model's functions take the group column in the STRUCT: each row scored
    by its group's parameters, a group no fit saw (and a NULL group) by the pooled model,
    a class the group never saw NULL (probability 0), as DuckDB's macros answer; then a
    partial_fit with a new group rewrites them."""
    frame, test = _grouped_frames()
    features = ["size"] if family == "gaussian" else ["size", "colour"]
    con = duckdb.connect()
    con.register("frame_df", frame)
    name = f"sf_grouped_{family}"
    model = sqlnb.NaiveBayes(name, con=spark, family=family).fit(
        spark.createDataFrame(frame.iloc[:40]), "y", features=features, group_by=GROUP)
    on_duckdb = sqlnb.NaiveBayes("d", con=con, family=family).fit(
        con.sql("SELECT * FROM frame_df LIMIT 40"), "y", features=features, group_by=GROUP)
    fields = f"struct({', '.join(features)}, `{GROUP.replace('`', '``')}`)"
    _against_duckdb(spark, frame, test, name, on_duckdb, fields)
    extra = frame.iloc[40:].assign(**{GROUP: "unseen"})  # the group the test rows name
    model.partial_fit(spark.createDataFrame(extra), "y")
    on_duckdb.partial_fit(extra, "y")
    _against_duckdb(spark, frame, test, name, on_duckdb, fields)
    con.close()


def _documents():
    words = ["cheap", "offer", "win", "meeting", "noon", "lunch", "report", "café", "Über"]
    bodies = [" ".join(words[(i * k) % len(words)] for k in range(1, 2 + i % 4))
              for i in range(30)]
    frame = pd.DataFrame({"id": range(30), TEXT: bodies,
                          GROUP: [["a", "b", None][i % 3] for i in range(30)],
                          "y": [["ham", "spam", "it's"][(i * 5) % 3] for i in range(30)]})
    test = frame.head(8).copy()
    test.loc[0, TEXT] = "zzz qqq, nothing known"  # no term of any vocabulary
    test.loc[1, TEXT] = None
    test.loc[2, TEXT] = ""
    test.loc[3:4, GROUP] = ["unseen", None]
    return frame, test


@pytest.mark.parametrize(("family", "options", "grouped"), [
    ("multinomial", {}, False),
    ("complement", {"ngram_range": (1, 2), "stop_words": "english"}, False),
    ("bernoulli", {"binary": True}, True),
    ("multinomial", {"tfidf": True, "sublinear_tf": True}, True),
], ids=["multinomial", "complement-bigrams", "bernoulli-grouped", "tfidf-grouped"])
def test_text_functions_tokenise_as_duckdbs_macros(spark, family, options, grouped):
    """A text model's functions take the text column (and a per-group one's group column):
    the document is tokenised in the function and scored as DuckDB's macros score it, a
    document without a known term (or NULL, or empty) by the class constants, a row of a
    group no fit saw by the pooled model; a partial_fit rewrites them."""
    frame, test = _documents()
    con = duckdb.connect()
    con.register("frame_df", frame)
    grouping = {"group_by": GROUP} if grouped else {}
    name = f"sf_text_{family}_{len(options)}_{int(grouped)}"
    model = sqlnb.NaiveBayes(name, con=spark, family=family).fit(
        spark.createDataFrame(frame.iloc[:20]), "y", text=TEXT, **options, **grouping)
    on_duckdb = sqlnb.NaiveBayes("d", con=con, family=family).fit(
        con.sql("SELECT * FROM frame_df LIMIT 20"), "y", text=TEXT, **options, **grouping)
    quoted = [f"`{c.replace('`', '``')}`" for c in [TEXT] + ([GROUP] if grouped else [])]
    fields = f"struct({', '.join(quoted)})"
    _against_duckdb(spark, frame, test, name, on_duckdb, fields)
    model.partial_fit(spark.createDataFrame(frame.iloc[20:]), "y", text=TEXT)
    on_duckdb.partial_fit(frame.iloc[20:], "y", text=TEXT)
    _against_duckdb(spark, frame, test, name, on_duckdb, fields)
    con.close()


def test_a_long_input_model_has_no_functions_and_drops_those_a_fit_left(spark):
    """Long input has no row to score (as DuckDB's macros refuse it): a long-input fit of a
    name whose earlier fit wrote functions drops them, and create_macros says why."""
    frame = spark.createDataFrame(ROWS, SCHEMA)
    model = sqlnb.NaiveBayes("sf_long", con=spark, family="multinomial").fit(
        frame, "y", features=["spend"])
    assert spark.catalog.functionExists("sf_long_predict")
    entries = spark.createDataFrame(
        [(d, t, float(v), ["a", "b"][d % 2]) for d in range(6) for t, v in
         (("x", d % 3 + 1), ("z", d % 2 + 1))], "doc bigint, term string, value double, y string")
    model.fit_long(entries, "y", document="doc", feature="term")
    assert not spark.catalog.functionExists("sf_long_predict")
    with pytest.raises(sqlnb.errors.UnsupportedError, match="long-input models"):
        model.create_macros()
