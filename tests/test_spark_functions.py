"""Scoring functions of models that live on Spark: SQL functions taking a STRUCT.

The oracle is the facade on the same model: ``predict`` labels identical,
``predict_proba`` / ``predict_log_proba`` within 1e-9. Every test shares the session-scoped
``spark`` fixture and fits a tiny table.
"""

from __future__ import annotations

import math

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
