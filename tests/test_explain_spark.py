"""explain, drift and top_features on Spark: the templates of sql/reports/ (and sql/text/ for
text models) in the Spark dialect, against the same model's on DuckDB (1e-9). Every Spark
test shares the session of conftest.py."""

from __future__ import annotations

import itertools

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlnb

pytest.importorskip("pyspark.sql")

FEATURES = ["x0", "x1", "x2"]
_rng = np.random.default_rng(21)
X = _rng.integers(0, 4, size=(24, 3))
Y = np.array(["a", "b", "c"] * 8)
X[Y == "b", 0] += 2
X[Y == "c", 2] += 3
ROWS = [(i, *map(int, x), y) for i, (x, y) in enumerate(zip(X, Y))]
COLUMNS = ["id", *FEATURES, "y"]
SCHEMA = "id bigint, x0 bigint, x1 bigint, x2 bigint, y string"


@pytest.fixture(scope="module")
def rows(spark):
    return spark.createDataFrame(ROWS, SCHEMA).coalesce(1)


@pytest.fixture
def duck():
    con = duckdb.connect()
    con.register("frame", pd.DataFrame(ROWS, columns=COLUMNS))
    con.execute("CREATE TABLE t AS SELECT * FROM frame")
    return con


def _same(got, expected, keys):
    """Rows equal on their first ``keys`` fields, the other doubles within 1e-9."""
    assert len(got) == len(expected) > 0
    for a, b in zip(got, expected):
        assert tuple(a[:keys]) == tuple(b[:keys])
        for x, y in zip(a[keys:], b[keys:]):
            if isinstance(y, float):
                assert x == pytest.approx(y, rel=1e-9, abs=1e-9)
            else:
                assert x == y


@pytest.mark.parametrize("family", ["gaussian", "multinomial", "bernoulli", "categorical",
                                    "poisson"])
def test_explain_on_spark_is_duckdbs(spark, rows, duck, family):
    model = sqlnb.NaiveBayes(f"ex_{family}", con=spark, family=family).fit(
        rows, "y", features=FEATURES)
    oracle = sqlnb.NaiveBayes("d", con=duck, family=family).fit("t", "y", features=FEATURES)
    got = model.explain(rows).orderBy("row_number", "class", "feature").collect()
    expected = oracle.explain("t").order("row_number, class, feature").fetchall()
    _same(got, expected, keys=3)
    got = model.explain(rows, top=2).collect()
    expected = oracle.explain("t", top=2).fetchall()
    _same([(r[0], r[1], r[2], r[4], r[5], r[6]) for r in got],
          [(r[0], r[1], r[2], r[4], r[5], r[6]) for r in expected], keys=3)


def test_to_sql_explain_in_spark_sql_is_duckdbs(spark, rows, duck):
    """A DuckDB model's explanation written in Spark SQL, run there."""
    oracle = sqlnb.NaiveBayes("d", con=duck).fit("t", "y", features=FEATURES)
    rows.createOrReplaceTempView("explain_rows")
    got = spark.sql(oracle.to_sql("explain_rows", output="explain", dialect="spark")) \
        .orderBy("row_number", "class", "feature").collect()
    expected = oracle.explain("t").order("row_number, class, feature").fetchall()
    _same(got, expected, keys=3)


def _tops(row):
    """A drift row with its batch_top and model_top as lists of (category, share)."""
    def pairs(top):
        return None if top is None else [(c["category"], round(c["share"], 12)) for c in top]
    return (*row[:11], pairs(row[11]), pairs(row[12]))


@pytest.mark.parametrize("family", ["gaussian", "poisson", "bernoulli", "categorical"])
def test_drift_on_spark_is_duckdbs(spark, rows, duck, family):
    """drift (pooled and by class, with and without PSI bins) on a Spark model, against
    the same model's on DuckDB: categories counted by grouping sets there, by histograms
    here."""
    model = sqlnb.NaiveBayes(f"dr_{family}", con=spark, family=family).fit(
        rows, "y", features=FEATURES)
    oracle = sqlnb.NaiveBayes("d", con=duck, family=family).fit("t", "y", features=FEATURES)
    shifted = rows.selectExpr("id", "x0 + 1 AS x0", "x1", "x2 * 2 AS x2", "y")
    duck.execute("CREATE TABLE shifted AS SELECT id, x0 + 1 AS x0, x1, x2 * 2 AS x2, y FROM t")
    for source, table in ((rows, "t"), (shifted, "shifted")):
        for by_class, bins in ((False, None), (True, 10)):
            got = model.drift(source, by_class=by_class, bins=bins).collect()
            expected = oracle.drift(table, by_class=by_class, bins=bins).fetchall()
            _same([_tops(r) for r in got], [_tops(r) for r in expected], keys=3)
            if family == "categorical":
                assert any(r[11] for r in expected)  # the top categories were compared
                assert all(r[2] == "psi" for r in expected)


MIXED_ROWS = [(i, float(i % 5) + 0.5 * (i % 2), ["u", "v", "w"][i % 3], "a" if i % 2 else "b")
              for i in range(12)]


def _final_plan(frame) -> str:
    """The physical plan the last action of ``frame`` ran (adaptive execution's final plan:
    a stage computed once and read again shows as ``ReusedExchange``, without its scan)."""
    plan = frame._jdf.queryExecution().executedPlan().toString()
    return plan.split("== Initial Plan ==")[0]


def test_drift_of_a_mixed_model_on_spark_scans_the_source_once(spark):
    """A family="auto" model's drift reads the batch's aggregate from two places (its
    Gaussian part and its categorical part's counts): Spark computes it once, one scan of
    the source, and the rows are DuckDB's."""
    frame = spark.createDataFrame(MIXED_ROWS, "id bigint, x double, c string, y string")
    model = sqlnb.NaiveBayes("dr_mixed", con=spark, family="auto").fit(
        frame, "y", features=["x", "c"])
    assert model.families_ == {"x": "gaussian", "c": "categorical"}
    duck = duckdb.connect()
    duck.register("frame", pd.DataFrame(MIXED_ROWS, columns=["id", "x", "c", "y"]))
    duck.execute("CREATE TABLE t AS SELECT * FROM frame")
    oracle = sqlnb.NaiveBayes("d", con=duck, family="auto").fit("t", "y", features=["x", "c"])
    for by_class, bins in ((False, None), (True, 4)):
        drift = model.drift(frame, by_class=by_class, bins=bins)
        got = drift.collect()
        plan = _final_plan(drift)
        assert "isFinalPlan=true" in plan
        assert plan.count("Scan ExistingRDD") == 1, plan
        expected = oracle.drift("t", by_class=by_class, bins=bins).fetchall()
        _same([_tops(r) for r in got], [_tops(r) for r in expected], keys=3)
        assert {r[2] for r in expected} == {"gaussian_kl", "psi"}


DOCS = pd.DataFrame({
    "body": ["cheap pills now, now!", "meeting at noon", "cheap meeting pills",
             "lunch at noon in the office", "buy cheap pills now", "office party at noon",
             "nothing known here"],
    "label": ["spam", "ham", "spam", "ham", "spam", "ham", "ham"],
})


@pytest.mark.parametrize(("family", "options"), [
    ("multinomial", {}),
    ("bernoulli", {"ngram_range": (1, 2)}),
    ("complement", {"tfidf": True, "stop_words": "english"}),
])
def test_text_explain_and_drift_on_spark_are_duckdbs(spark, family, options):
    """A text model on Spark is explained per document, class and known term, and its
    drift is the PSI of the batch's token shares: both as the same model's on DuckDB, and
    log_prior + the terms of a document and class is Spark's predict_joint_log_proba."""
    frame = spark.createDataFrame(DOCS).coalesce(1)
    model = sqlnb.NaiveBayes(f"ex_text_{family}", con=spark, family=family).fit(
        frame, "label", text="body", **options)
    duck = duckdb.connect()
    duck.register("docs", DOCS)
    oracle = sqlnb.NaiveBayes("d", con=duck, family=family).fit(
        "docs", "label", text="body", **options)

    got = model.explain(frame).orderBy("row_number", "class", "feature").collect()
    expected = oracle.explain("docs").order("row_number, class, feature").fetchall()
    _same(got, expected, keys=3)
    sums, priors = {}, {}
    for row, label, _, log_likelihood, log_prior in got:
        sums[row, label] = sums.get((row, label), 0.0) + log_likelihood
        priors[label] = log_prior
    joint = model.predict_joint_log_proba(frame).collect()
    classes = model.classes_
    assert len(joint) == len(DOCS)
    for row, scored in enumerate(joint):
        for c, label in enumerate(classes):
            assert priors[label] + sums.get((row, label), 0.0) == pytest.approx(
                scored[-len(classes) + c], rel=1e-9, abs=1e-9)

    got = model.explain(frame, top=2).collect()
    expected = oracle.explain("docs", top=2).fetchall()
    _same(got, expected, keys=3)
    assert {r[0] for r in model.explain(frame, row=2).collect()} == {2}

    shifted = DOCS.assign(body=DOCS.body.str.replace("cheap", "office"))
    duck.register("shifted", shifted)
    for source, table in ((frame, "docs"), (spark.createDataFrame(shifted), "shifted")):
        got = model.drift(source).collect()
        expected = oracle.drift(table).fetchall()
        _same([_tops(r) for r in got], [_tops(r) for r in expected], keys=3)
    assert expected[0][3] > 0.01  # the shifted batch drifts


@pytest.mark.parametrize(("family", "options"), [
    ("multinomial", {}),
    ("complement", {"tfidf": True}),
])
def test_text_to_sql_explain_in_spark_sql_is_duckdbs(spark, family, options):
    """A DuckDB text model's explanation written in Spark SQL (its vocabulary inlined),
    run there: DuckDB's explain, every term and the top 2 per document."""
    duck = duckdb.connect()
    duck.register("docs", DOCS)
    oracle = sqlnb.NaiveBayes("d", con=duck, family=family).fit(
        "docs", "label", text="body", **options)
    spark.createDataFrame(DOCS).coalesce(1).createOrReplaceTempView("explain_docs")
    got = spark.sql(oracle.to_sql("explain_docs", output="explain", dialect="spark")) \
        .orderBy("row_number", "class", "feature").collect()
    expected = oracle.explain("docs").order("row_number, class, feature").fetchall()
    _same(got, expected, keys=3)
    got = spark.sql(oracle.to_sql("explain_docs", output="explain", top=2,
                                  dialect="spark")).collect()
    expected = oracle.explain("docs", top=2).fetchall()
    _same([(*r[:3], float(r[3]), *r[4:]) for r in got],
          [(*r[:3], float(r[3]), *r[4:]) for r in expected], keys=3)


def test_per_group_text_explain_on_spark_is_duckdbs(spark):
    """A per-group text model on Spark explains each document by its shop's model (the
    pooled one for an unseen shop or none), as the same model on DuckDB does, and
    log_prior + a document's terms is Spark's predict_joint_log_proba."""
    train = DOCS.assign(shop=["a", "a", "b", "a", "b", "b", "a"])
    test = pd.DataFrame({
        "body": ["cheap pills at noon", "office party now", "meeting pills", "cheap lunch",
                 "qqq zzz"],
        "shop": ["a", "b", "elsewhere", None, "a"]})
    model = sqlnb.NaiveBayes("ex_text_groups", con=spark, family="multinomial").fit(
        spark.createDataFrame(train).coalesce(1), "label", text="body", group_by="shop")
    frame = spark.createDataFrame(test, "body string, shop string").coalesce(1)
    duck = duckdb.connect()
    duck.register("train", train)
    duck.register("test", test)
    oracle = sqlnb.NaiveBayes("d", con=duck, family="multinomial").fit(
        "train", "label", text="body", group_by="shop")

    got = model.explain(frame).orderBy("row_number", "class", "feature").collect()
    expected = oracle.explain("test").order("row_number, class, feature").fetchall()
    _same(got, expected, keys=3)
    assert {r[0] for r in got} == {0, 1, 2, 3}  # the last document has no known term
    sums, priors = {}, {}
    for row, label, _, log_likelihood, log_prior in got:
        sums[row, label] = sums.get((row, label), 0.0) + log_likelihood
        priors[row, label] = log_prior
    joint = model.predict_joint_log_proba(frame).collect()
    classes = model.classes_
    for (row, label), total in sums.items():
        scored = joint[row][-len(classes) + classes.index(label)]
        assert priors[row, label] + total == pytest.approx(scored, rel=1e-9, abs=1e-9)
    _same(model.explain(frame, top=2).collect(), oracle.explain("test", top=2).fetchall(),
          keys=3)
    _same(model.explain(frame, row=3).orderBy("class", "feature").collect(),
          oracle.explain("test", row=3).order("class, feature").fetchall(), keys=3)


@pytest.mark.parametrize("family", ["gaussian", "multinomial", "bernoulli", "categorical",
                                    "complement", "auto"])
def test_top_features_on_spark_are_duckdbs(spark, rows, duck, family):
    frame = rows.selectExpr("id", "x0", "CAST(x1 AS DOUBLE) AS x1", "CAST(x2 AS STRING) AS x2",
                            "y") if family == "auto" else rows
    options = {"families": {"x0": "poisson"}} if family == "auto" else {}
    model = sqlnb.NaiveBayes(f"tf_{family}", con=spark, family=family, **options).fit(
        frame, "y", features=FEATURES)
    if family == "auto":
        duck.execute("CREATE OR REPLACE TABLE t AS SELECT id, x0, CAST(x1 AS DOUBLE) AS x1, "
                     "CAST(x2 AS VARCHAR) AS x2, y FROM t")
    oracle = sqlnb.NaiveBayes("d", con=duck, family=family, **options).fit(
        "t", "y", features=FEATURES)
    if family == "auto":
        assert len(set(model.families_.values())) == 3
    # every (class, feature, category) ranked (k above their number): the same scores to
    # 1e-9 (scores equal up to rounding may be ranked either way round)
    got = model.top_features(50).collect()
    expected = {(r[0], r[2], r[3]): r[4] for r in oracle.top_features(50).fetchall()}
    assert len(got) == len(expected) >= 3 * 3
    for label, rank, feature, category, score in got:
        assert score == pytest.approx(expected[label, feature, category], rel=1e-9, abs=1e-9)
    for label in {r[0] for r in got}:
        ranked = [r for r in got if r[0] == label]
        assert [r[1] for r in ranked] == list(range(1, len(ranked) + 1))
        assert all(a[4] >= b[4] - 1e-12 for a, b in itertools.pairwise(ranked))


def test_per_group_mixed_explain_and_drift_on_spark_are_duckdbs(spark):
    """A per-group family="auto" model on Spark explains each row by its group's parts (the
    pooled ones for an unseen or NULL group) and measures drift against its pooled
    statistics, as the same model on DuckDB does."""
    rng = np.random.default_rng(5)
    y = np.array(["a", "b", "c"] * 8)
    g = np.arange(24) % 2
    y[(g == 1) & (y == "c")] = "b"  # group 1 never sees class c
    train = pd.DataFrame({"height": rng.normal(size=24) + (y == "b"),
                          "colour": rng.choice(["red", "blue"], 24),
                          "visits": rng.poisson(2.0, 24).astype(np.int64), "g": g, "y": y})
    test = train.drop(columns="y").astype({"g": "float64"})
    test.loc[:2, "g"] = 5.0  # unseen
    test.loc[3, "g"] = np.nan  # NULL
    schema = "height double, colour string, visits bigint, g double"
    model = sqlnb.NaiveBayes("ex_group_auto", con=spark, family="auto",
                             integers="poisson").fit(
        spark.createDataFrame(train).coalesce(1), "y", group_by="g")
    frame = spark.createDataFrame(test, schema).coalesce(1)
    duck = duckdb.connect()
    duck.register("train", train)
    duck.register("test", test)
    oracle = sqlnb.NaiveBayes("d", con=duck, family="auto", integers="poisson").fit(
        "train", "y", group_by="g")
    got = model.explain(frame).orderBy("row_number", "class", "feature").collect()
    expected = oracle.explain("test").order("row_number, class, feature").fetchall()
    assert any(r[3] is None for r in expected)  # group 1's class c
    _same(got, expected, keys=3)
    _same([(r[0], r[1], r[2], r[4], r[5], r[6]) for r in model.explain(frame, top=2).collect()],
          [(r[0], r[1], r[2], r[4], r[5], r[6]) for r in oracle.explain("test", top=2).fetchall()],
          keys=3)
    got = [r[:11] for r in model.drift(frame).collect()]
    expected = [r[:11] for r in oracle.drift("test").fetchall()]
    _same(got, expected, keys=3)
