"""Text models that live on Spark, against the same model fitted on DuckDB and against
scikit-learn's vectorizers and naive Bayes.

The tokeniser is spelt in Spark SQL (Java regular expressions, Spark's array functions);
on a corpus with non-ASCII words the Spark model's vocabulary must be DuckDB's and
scikit-learn's, labels identical and probabilities within 1e-9. Where the engines' case
folding differs (Java lowercases as Python does, DuckDB per character), Spark agrees with
scikit-learn. Every test shares the one Spark session of conftest.py and fits a tiny corpus.
"""

from __future__ import annotations

import itertools

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.naive_bayes import BernoulliNB, ComplementNB, MultinomialNB

import sqlnb
import sqlnb.text
from sqlnb.engines.dialects import SPARK
from sqlnb.errors import InvalidDataError, InvalidParameterError

pytest.importorskip("pyspark.sql")

SKLEARN = {"multinomial": MultinomialNB, "complement": ComplementNB, "bernoulli": BernoulliNB}
WORDS = ["money", "Money", "offer", "cheap", "win", "meeting", "noon", "lunch", "café",
         "naïve", "über", "Ärger", "niño", "Привет", "мир", "東京", "٣٤", "x1", "a_b", "the",
         "and", "don't", "e-mail", "I", "report", "Data"]
SEPARATORS = [" ", "  ", ", ", ". ", "\n", "!", "\t", "? "]
_names = itertools.count()


def make_corpus(n_docs: int, seed: int) -> pd.DataFrame:
    """Documents of two classes with their own word preferences (an empty one, a NULL one)."""
    rng = np.random.default_rng(seed)
    preferences = rng.dirichlet(np.full(len(WORDS), 0.4), size=2)
    bodies, labels = [], []
    for i in range(n_docs):
        words = rng.choice(WORDS, size=int(rng.integers(1, 12)), p=preferences[i % 2])
        seps = rng.choice(SEPARATORS, size=len(words))
        bodies.append("".join(w + s for w, s in zip(words, seps)))
        labels.append(["ham", "spam"][i % 2])
    bodies[5], bodies[8] = "", None
    return pd.DataFrame({"body": bodies, "label": labels})


TRAIN, TEST = make_corpus(24, 1), make_corpus(10, 2)


def name(prefix: str) -> str:
    """A model name not used before in the session (the Spark catalog outlives a test)."""
    return f"{prefix}_{next(_names)}"


@pytest.fixture(scope="module")
def frames(spark):
    return spark.createDataFrame(TRAIN), spark.createDataFrame(TEST)


@pytest.fixture
def duck():
    con = duckdb.connect()
    con.register("train_df", TRAIN)
    con.register("test_df", TEST)
    con.execute("CREATE TABLE train AS SELECT * FROM train_df")
    con.execute("CREATE TABLE test AS SELECT * FROM test_df")
    yield con
    con.close()


def rows(result) -> list[tuple]:
    """A DuckDB relation's or a Spark DataFrame's rows, in order."""
    # a Connect DataFrame answers any attribute name with a column: ask for the type
    if isinstance(result, duckdb.DuckDBPyRelation):
        return result.fetchall()
    return [tuple(r) for r in result.collect()]


def assert_same(got: list[tuple], expected: list[tuple], start: int, tol: float = 1e-9) -> None:
    """The same rows: the columns before ``start`` equal, the others within ``tol``."""
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g[:start] == e[:start]
        np.testing.assert_allclose(np.array(g[start:], dtype=float),
                                   np.array(e[start:], dtype=float), rtol=0, atol=tol)


def sklearn_model(family: str, options: dict, train: pd.DataFrame):
    options = dict(options)
    vectorizer = (TfidfVectorizer if options.pop("tfidf", False) else CountVectorizer)(**options)
    X = vectorizer.fit_transform(train["body"].fillna(""))
    return vectorizer, SKLEARN[family]().fit(X, train["label"])


# (a few options per case: each case is two fits, one of them on Spark)
CASES = [
    ("multinomial", {"min_df": 2, "max_df": 0.8}),
    ("complement", {"ngram_range": (1, 3), "stop_words": "english"}),
    ("bernoulli", {"binary": True, "token_pattern": r"(\w+)'?", "max_features": 12}),
    ("multinomial", {"tfidf": True, "norm": "l1", "sublinear_tf": True, "lowercase": False,
                     "token_pattern": r"(?u)\b\w+\b"}),
]


@pytest.mark.parametrize(("family", "options"), CASES,
                         ids=[f"{f}-{'-'.join(o) or 'defaults'}" for f, o in CASES])
def test_a_text_model_on_spark_answers_as_on_duckdb_and_as_scikit_learn(
        spark, frames, duck, family, options):
    train, test = frames
    model = sqlnb.NaiveBayes(name("st"), con=spark, family=family)
    model.fit(train, "label", text="body", **options)
    on_duckdb = sqlnb.NaiveBayes("st", con=duck, family=family)
    on_duckdb.fit("train", "label", text="body", **options)

    read = "SELECT term FROM {} ORDER BY term_index"
    vocabulary = [r[0] for r in rows(spark.sql(read.format(model.tables["vocabulary"])))]
    assert vocabulary == [r[0] for r in duck.sql(
        read.format(on_duckdb.tables["vocabulary"])).fetchall()]
    for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba"):
        assert_same(rows(getattr(model, method)(test)),
                    rows(getattr(on_duckdb, method)("test")), start=2)
    if "max_features" in options:
        return  # ties at the cut: sqlnb keeps the alphabetically first, NumPy's sort any
    vectorizer, nb = sklearn_model(family, options, TRAIN)
    assert vocabulary == list(vectorizer.get_feature_names_out())
    X = vectorizer.transform(TEST["body"].fillna(""))
    assert [r[2] for r in rows(model.predict(test))] == list(nb.predict(X))
    np.testing.assert_allclose([r[2:] for r in rows(model.predict_proba(test))],
                               nb.predict_proba(X), rtol=0, atol=1e-9)


def test_updates_and_merges_of_spark_text_models_equal_duckdbs(spark, duck):
    first, second = TRAIN.iloc[:14], TRAIN.iloc[14:]
    duck.register("first_df", first)
    duck.register("second_df", second)
    s_first, s_second = spark.createDataFrame(first), spark.createDataFrame(second)
    test = spark.createDataFrame(TEST)

    model = sqlnb.NaiveBayes(name("su"), con=spark, family="multinomial")
    model.partial_fit(s_first, "label", text="body")
    model.partial_fit(s_second, "label", text="body")
    on_duckdb = sqlnb.NaiveBayes("su", con=duck, family="multinomial")
    on_duckdb.partial_fit("first_df", "label", text="body")
    on_duckdb.partial_fit("second_df", "label", text="body")
    assert_same(rows(model.predict_proba(test)), rows(on_duckdb.predict_proba("test")), 2)

    model.forget(s_second, "label", text="body")
    on_duckdb.forget("second_df", "label", text="body")
    assert_same(rows(model.predict_proba(test)), rows(on_duckdb.predict_proba("test")), 2)

    other = sqlnb.NaiveBayes(name("so"), con=spark, family="multinomial")
    other.fit(s_second, "label", text="body")
    merged = sqlnb.merge(spark, [model, other], into=name("sm"))
    other_duckdb = sqlnb.NaiveBayes("so", con=duck, family="multinomial")
    other_duckdb.fit("second_df", "label", text="body")
    merged_duckdb = sqlnb.merge(duck, [on_duckdb, other_duckdb], into="sm")
    assert_same(rows(merged.predict_proba(test)), rows(merged_duckdb.predict_proba("test")), 2)
    # the merge is the fit on the union (no pruning, no idf: the vocabularies union)
    vectorizer, nb = sklearn_model("multinomial", {}, TRAIN)
    np.testing.assert_allclose(
        [r[2:] for r in rows(merged.predict_proba(test))],
        nb.predict_proba(vectorizer.transform(TEST["body"].fillna(""))), rtol=0, atol=1e-9)
    assert_same(rows(sqlnb.text.top_terms(merged, 3)), rows(sqlnb.text.top_terms(merged_duckdb, 3)),
                start=2)


def test_a_text_models_statement_runs_on_either_engine_and_evaluate_works_on_spark(
        spark, frames, duck):
    train, test = frames
    test.createOrReplaceTempView("spark_text_test")
    options = {"tfidf": True, "ngram_range": (1, 2)}
    model = sqlnb.NaiveBayes(name("ss"), con=spark, family="complement")
    model.fit(train, "label", text="body", **options)
    on_duckdb = sqlnb.NaiveBayes("ss", con=duck, family="complement")
    on_duckdb.fit("train", "label", text="body", **options)
    expected = rows(on_duckdb.predict_proba("test"))
    for fitted in (model, on_duckdb):  # Spark SQL from either engine's model
        statement = fitted.to_sql("spark_text_test", output="predict_proba", dialect="spark")
        assert_same([r[:2] + r[3:] for r in rows(spark.sql(statement))], expected, 2)
    assert_same([r[:2] + r[3:] for r in rows(duck.sql(model.to_sql(
        "test", output="predict_proba", dialect="duckdb")))], expected, 2)
    on_spark, on_duck = model.evaluate(test, "label"), on_duckdb.evaluate("test", "label")
    assert on_spark["confusion_matrix"] == on_duck["confusion_matrix"]
    assert on_spark["log_loss"] == pytest.approx(on_duck["log_loss"], abs=1e-9)


def test_spark_lowercases_as_python_does_where_duckdb_does_not(spark):
    # Java and Python lowercase a final capital sigma to ς and İ to i + a combining dot;
    # DuckDB lowercases character by character (σ, i)
    corpus = pd.DataFrame({"body": ["ΟΔΟΣ ΚΑΛΟΣ", "İSTANBUL ΟΔΟΣ", "ΚΑΛΟΣ ΠΟΛΥ", "ΠΟΛΥ καλος"],
                           "label": ["a", "a", "b", "b"]})
    model = sqlnb.NaiveBayes(name("sc"), con=spark, family="multinomial")
    model.fit(spark.createDataFrame(corpus), "label", text="body")
    vectorizer, nb = sklearn_model("multinomial", {}, corpus)
    vocabulary = [r[0] for r in rows(spark.sql(
        f"SELECT term FROM {model.tables['vocabulary']} ORDER BY term_index"))]
    assert vocabulary == list(vectorizer.get_feature_names_out())
    assert "οδος" in vocabulary and "stanbul" in vocabulary
    np.testing.assert_allclose(
        [r[2:] for r in rows(model.predict_proba(spark.createDataFrame(corpus)))],
        nb.predict_proba(vectorizer.transform(corpus["body"])), rtol=0, atol=1e-9)


def test_a_word_boundary_keeps_duckdbs_ascii_meaning_on_spark(spark, duck):
    # RE2's \b is ASCII (é is not a word character), Java 17's is not: sqlnb writes RE2's
    corpus = pd.DataFrame({"body": ["café éclair", "caféine café", "thé vert", "thé café"],
                           "label": ["a", "a", "b", "b"]})
    duck.register("boundary_df", corpus)
    pattern = r"\b[a-zé]+\b"
    model = sqlnb.NaiveBayes(name("sb"), con=spark, family="multinomial")
    model.fit(spark.createDataFrame(corpus), "label", text="body", token_pattern=pattern)
    on_duckdb = sqlnb.NaiveBayes("sb", con=duck, family="multinomial")
    on_duckdb.fit("boundary_df", "label", text="body", token_pattern=pattern)
    read = "SELECT term FROM {} ORDER BY term_index"
    spark_terms = [r[0] for r in rows(spark.sql(read.format(model.tables["vocabulary"])))]
    assert spark_terms == [r[0] for r in duck.sql(
        read.format(on_duckdb.tables["vocabulary"])).fetchall()]
    assert "caf" in spark_terms and "café" not in spark_terms


def test_java_spelling_of_token_patterns():
    assert SPARK.regex(r"[\p{L}\p{N}_]+") == r"(?du)[\p{L}\p{N}_]+"
    assert SPARK.regex(r"x\B") == (r"(?du)x(?:(?<=[0-9A-Za-z_])(?=[0-9A-Za-z_])"
                                    r"|(?<![0-9A-Za-z_])(?![0-9A-Za-z_]))")
    assert SPARK.regex(r"(?P<word>\w+)") == r"(?du)(\w+)"


def test_what_text_models_cannot_do_on_spark_is_refused_before_any_write(spark, frames):
    train, _ = frames
    model = sqlnb.NaiveBayes(name("sr"), con=spark, family="multinomial")
    # valid in Python, not in Java's regular expressions (a conditional group)
    with pytest.raises(InvalidParameterError, match="not in Spark SQL's regular expressions"):
        model.fit(train, "label", text="body", token_pattern=r"(?:(a)|b)(?(1)x|y)")
    assert not [t.name for t in spark.catalog.listTables() if t.name.startswith(model.name)]


def test_long_input_fits_updates_and_scores_on_spark_as_on_duckdb(spark, duck):
    rng = np.random.default_rng(5)
    entries = pd.DataFrame(
        [(d, f, float(rng.integers(1, 4) + 3 * (d % 2) * (f == "f1")))
         for d in range(20) for f in rng.choice(["f1", "f2", "f3", "f4", "f5"], size=3,
                                                replace=False)],
        columns=["doc", "term", "value"])
    labels = pd.DataFrame({"doc": range(20), "label": ["a", "b"] * 10})
    first, second = entries[entries["doc"] < 12], entries[entries["doc"] >= 12]
    for table, frame in [("entries", entries), ("labels", labels), ("first", first),
                         ("second", second)]:
        duck.register(f"{table}_df", frame)
        duck.execute(f"CREATE TABLE {table} AS SELECT * FROM {table}_df")
    model = sqlnb.NaiveBayes(name("sl"), con=spark, family="complement")
    model.fit_long(spark.createDataFrame(first), "label", labels=spark.createDataFrame(labels),
                   document="doc", feature="term")
    model.partial_fit_long(spark.createDataFrame(second), "label",
                           labels=spark.createDataFrame(labels), document="doc", feature="term")
    on_duckdb = sqlnb.NaiveBayes("sl", con=duck, family="complement")
    on_duckdb.fit_long("first", "label", labels="labels", document="doc", feature="term")
    on_duckdb.partial_fit_long("second", "label", labels="labels", document="doc",
                               feature="term")
    assert_same(rows(model.predict_proba(spark.createDataFrame(entries))),
                rows(on_duckdb.predict_proba("entries")), start=1)
    # the fit on every entry at once is the same model (long input is plain counts)
    whole = sqlnb.NaiveBayes("whole", con=duck, family="complement")
    whole.fit_long("entries", "label", labels="labels", document="doc", feature="term")
    assert_same(rows(model.predict_proba(spark.createDataFrame(entries))),
                rows(whole.predict_proba("entries")), start=1)


def test_a_failed_refit_leaves_the_spark_text_model_answering(spark, frames):
    train, test = frames
    model = sqlnb.NaiveBayes(name("sa"), con=spark, family="multinomial")
    model.fit(train, "label", text="body")
    before = rows(model.predict_proba(test))
    only_stop_words = spark.createDataFrame(pd.DataFrame({"body": ["the and", "of the"],
                                                          "label": ["ham", "spam"]}))
    with pytest.raises(InvalidDataError, match="empty vocabulary"):
        model.fit(only_stop_words, "label", text="body", stop_words="english")
    # the vocabulary and analyzer are versioned with the statistics: all of the old model
    assert rows(sqlnb.load(spark, model.name).predict_proba(test)) == before


def test_per_group_text_models_on_spark_answer_as_on_duckdb(spark, duck):
    """A text model per group (and the pooled one for other groups): fit, partial_fit
    (a new group) and forget (a group emptied, scored by the pooled model again) on Spark,
    each followed by predict_proba, against the same calls on DuckDB (1e-9)."""
    frame = TRAIN.assign(shop=[["a", "b", None][i % 3] for i in range(len(TRAIN))])
    first, shop_c = frame.iloc[:16], frame.iloc[16:].assign(shop="c")
    test = TEST.assign(shop=[["a", "b", "c", "d"][i % 4] for i in range(len(TEST))])
    for table, data in (("first", first), ("shop_c", shop_c), ("grouped_test", test)):
        duck.register(f"{table}_df", data)
        duck.execute(f"CREATE TABLE {table} AS SELECT * FROM {table}_df")
    s_first, s_c, s_test = (spark.createDataFrame(f).coalesce(1) for f in (first, shop_c, test))
    model = sqlnb.NaiveBayes(name("sg"), con=spark, family="multinomial")
    on_duckdb = sqlnb.NaiveBayes("sg", con=duck, family="multinomial")
    steps = [
        (lambda m, src: m.fit(src, "label", text="body", group_by="shop"), s_first, "first"),
        (lambda m, src: m.partial_fit(src, "label", text="body"), s_c, "shop_c"),
        (lambda m, src: m.forget(src, "label", text="body"), s_c, "shop_c"),
    ]
    seen = []
    for step, s_source, d_source in steps:
        step(model, s_source)
        step(on_duckdb, d_source)
        got, expected = rows(model.predict_proba(s_test)), rows(
            on_duckdb.predict_proba("grouped_test"))
        assert_same(got, expected, start=3)  # body, label, shop, then the probabilities
        seen.append([r[3:] for r in got])
    assert seen[1] != seen[0] and seen[2] != seen[1]  # shop c's rows scored by its model
    groups = [r[0] for r in rows(spark.sql(
        f"SELECT shop FROM {model.name}_text_groups ORDER BY shop"))]
    assert groups == ["a", "b"]
    # merge: shop c comes from the other model alone
    other = sqlnb.NaiveBayes(name("sg"), con=spark, family="multinomial").fit(
        s_c, "label", text="body", group_by="shop")
    model.merge(other)
    on_duckdb.merge(sqlnb.NaiveBayes("sg_c", con=duck, family="multinomial").fit(
        "shop_c", "label", text="body", group_by="shop"))
    assert_same(rows(model.predict_proba(s_test)), rows(on_duckdb.predict_proba("grouped_test")),
                start=3)
    groups = [r[0] for r in rows(spark.sql(
        f"SELECT shop FROM {model.name}_text_groups ORDER BY shop"))]
    assert groups == ["a", "b", "c"]


def test_a_per_group_text_models_statement_runs_on_either_engine(spark, duck):
    """to_sql of a per-group text model fitted on Spark or on DuckDB, in Spark SQL, runs on
    Spark and answers as DuckDB's predict_proba (each row by its shop's model, the pooled
    one for shop c, which no fit saw, and no shop); its explain statement too."""
    frame = TRAIN.assign(shop=[["a", "b", None][i % 3] for i in range(len(TRAIN))])
    test = TEST.assign(shop=[["a", "b", "c", None][i % 4] for i in range(len(TEST))])
    for table, data in (("gt_train", frame), ("gt_test", test)):
        duck.register(f"{table}_df", data)
        duck.execute(f"CREATE TABLE {table} AS SELECT * FROM {table}_df")
    spark.createDataFrame(test).coalesce(1).createOrReplaceTempView("spark_grouped_test")
    options = {"tfidf": True, "ngram_range": (1, 2)}
    model = sqlnb.NaiveBayes(name("sq"), con=spark, family="complement").fit(
        spark.createDataFrame(frame), "label", text="body", group_by="shop", **options)
    on_duckdb = sqlnb.NaiveBayes("sq", con=duck, family="complement").fit(
        "gt_train", "label", text="body", group_by="shop", **options)
    expected = rows(on_duckdb.predict_proba("gt_test"))
    for fitted in (model, on_duckdb):  # Spark SQL from either engine's model
        statement = fitted.to_sql("spark_grouped_test", output="predict_proba", dialect="spark")
        assert_same([r[:3] + r[4:] for r in rows(spark.sql(statement))], expected, 3)
    assert_same([r[:3] + r[4:] for r in rows(duck.sql(model.to_sql(
        "gt_test", output="predict_proba", dialect="duckdb")))], expected, 3)
    explained = sorted(rows(on_duckdb.explain("gt_test")))
    assert_same(sorted(rows(spark.sql(on_duckdb.to_sql(
        "spark_grouped_test", output="explain", dialect="spark")))), explained, 3)


def test_a_per_group_text_model_moves_between_the_engines(spark, duck, tmp_path):
    """A per-group text model exported from DuckDB imports into Spark and answers there as
    on DuckDB; exported from Spark, it comes back to DuckDB with the same statistics."""
    frame = TRAIN.assign(shop=[["a", "b", None][i % 3] for i in range(len(TRAIN))])
    test = TEST.assign(shop=[["a", "b", "c", None][i % 4] for i in range(len(TEST))])
    for table, data in (("move_train", frame), ("move_test", test)):
        duck.register(f"{table}_df", data)
        duck.execute(f"CREATE TABLE {table} AS SELECT * FROM {table}_df")
    fitted = sqlnb.NaiveBayes("mv", con=duck, family="multinomial").fit(
        "move_train", "label", text="body", group_by="shop")
    on_spark = sqlnb.import_model(spark, fitted.export(tmp_path / "from_duckdb"),
                                  name=name("mv"))
    assert_same(rows(on_spark.predict_proba(spark.createDataFrame(test).coalesce(1))),
                rows(fitted.predict_proba("move_test")), start=3)
    back = duckdb.connect()
    sqlnb.import_model(back, on_spark.export(tmp_path / "from_spark"), name="mv")
    tables = [r[0] for r in duck.sql(
        "SELECT table_name FROM duckdb_tables() WHERE starts_with(table_name, 'mv_') AND "
        "NOT ends_with(table_name, '_meta') ORDER BY 1").fetchall()]
    assert "mv_text_group_1_vocabulary" in tables
    for table in tables:
        query = f"SELECT * FROM {table} ORDER BY ALL"
        assert back.sql(query).fetchall() == duck.sql(query).fetchall(), table


def test_a_per_group_text_search_on_spark_answers_as_on_duckdb(spark, duck):
    """search(..., text=, group_by=) on Spark: every (model, fold) a text model of its own,
    each held-out document by its shop's model; cv_results_ within 1e-9 of DuckDB's."""
    frame = TRAIN.assign(shop=[["a", "b", None][i % 3] for i in range(len(TRAIN))],
                         fold=[(i // 2) % 3 for i in range(len(TRAIN))])
    duck.register("search_df", frame)
    grid = {"alpha": [0.5, 2.0]}
    arguments = {"text": "body", "group_by": "shop", "cv": "fold", "param_grid": grid,
                 "scoring": ["accuracy", "neg_log_loss"], "refit": False}
    expected = sqlnb.NaiveBayes("ss", con=duck, family="multinomial").search(
        "search_df", "label", **arguments).cv_results_.df()
    got = sqlnb.NaiveBayes(name("ss"), con=spark, family="multinomial").search(
        spark.createDataFrame(frame), "label", **arguments).cv_results_.toPandas()
    for column in ("mean_test_accuracy", "mean_test_neg_log_loss"):
        np.testing.assert_allclose(got[column], expected[column], rtol=0, atol=1e-9)


@pytest.mark.parametrize("family", ["multinomial", "bernoulli", "complement"])
def test_a_text_model_moves_between_the_engines(spark, frames, duck, family, tmp_path):
    """A text model exported from DuckDB imports into Spark and answers there as on DuckDB;
    fitted on Spark and exported, it comes to DuckDB with the same statistics, bit for bit."""
    train, test = frames
    fitted = sqlnb.NaiveBayes("tm", con=duck, family=family).fit("train", "label", text="body")
    on_spark = sqlnb.import_model(spark, fitted.export(tmp_path / "from_duckdb"),
                                  name=name("tm"))
    assert_same(rows(on_spark.predict_proba(test.coalesce(1))),
                rows(fitted.predict_proba("test")), start=2)

    model = sqlnb.NaiveBayes(name("tm"), con=spark, family=family).fit(
        train, "label", text="body")
    folder = model.export(tmp_path / "from_spark")
    back = duckdb.connect()
    copy = sqlnb.import_model(back, folder, name="tm")
    for role in ("class_stats", "feature_stats", "vocabulary"):
        hexed = [sorted((tuple(v.hex() if isinstance(v, float) else v for v in row)
                         for row in found), key=repr)
                 for found in (back.sql(f"SELECT * FROM tm_{role}").fetchall(),
                               rows(spark.sql(f"SELECT * FROM {model.name}_{role}")))]
        assert hexed[0] == hexed[1], role
    back.register("test_df", TEST)
    assert_same(rows(copy.predict_proba(back.sql("SELECT * FROM test_df"))),
                rows(model.predict_proba(test.coalesce(1))), start=2)
