"""Text models unlearn, merge and score from plain SQL: forget, merge, the scoring macros
and ``to_sql``.

The oracles: scikit-learn's vectorizer + naive Bayes (``forget`` under the first fit's
vocabulary), sqlnb's own fit on the union (``merge``) and ``predict*`` (the macros and the
standalone statement). Probabilities within 1e-9, predictions identical.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import CountVectorizer

import sqlnb
from sqlnb.errors import (
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
    UnsupportedError,
)
from tests.test_text import SKLEARN, long_tables, make_corpus, sklearn_pipeline

FAMILIES = ["multinomial", "complement", "bernoulli"]
# analyzers that exercise each piece of the SQL tokeniser and weighting
ANALYZERS = [
    {},
    {"tfidf": True, "sublinear_tf": True},
    {"ngram_range": (1, 2), "stop_words": "english", "binary": True},
    {"tfidf": True, "norm": "l1", "smooth_idf": False, "lowercase": False,
     "token_pattern": r"(\w+)"},
    {"min_df": 2, "max_features": 60},
]


@pytest.fixture(scope="module")
def corpus() -> tuple[pd.DataFrame, pd.DataFrame]:
    return make_corpus(240, 11), make_corpus(60, 12)


@pytest.fixture()
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    yield connection
    connection.close()


def probabilities(model: sqlnb.NaiveBayes, source) -> np.ndarray:
    frame = model.predict_proba(source).df()
    return frame[[f"proba_{c}" for c in model.classes_]].to_numpy()


def statistics(con, name: str) -> dict[str, list[tuple]]:
    """A model's statistics, rounded to 12 significant digits (sums in another order)."""
    def rounded(rows):
        return sorted(tuple(float(f"{v:.12g}") if isinstance(v, float) else v for v in row)
                      for row in rows)
    return {
        "classes": rounded(con.sql(f"SELECT class, n, weight FROM {name}_class_stats").fetchall()),
        "terms": rounded(con.sql(f"SELECT class, feature, count FROM {name}_feature_stats")
                         .fetchall()),
        "features": sorted(con.sql(f"SELECT feature_index, feature, alpha FROM {name}_features")
                           .fetchall()),
    }


# --------------------------------------------------------------------- forget
@pytest.mark.parametrize("family, options", [
    ("multinomial", {}), ("multinomial", {"tfidf": True}),
    ("complement", {"ngram_range": (1, 2)}), ("complement", {"min_df": 2}),
    ("bernoulli", {}), ("bernoulli", {"tfidf": True, "min_df": 2}),
])
def test_forget_equals_sklearn_on_the_rest_under_the_first_vocabulary(con, corpus, family,
                                                                      options):
    train, test = corpus
    forgotten, kept = train.iloc[:90], train.iloc[90:]
    # the vocabulary (and idf) come from everything fitted, the counts from what is kept
    vectorizer, nb = sklearn_pipeline(family, options, {})
    vectorizer.fit(train["body"])
    nb.fit(vectorizer.transform(kept["body"]), kept["label"])

    model = sqlnb.NaiveBayes("nb", con=con, family=family)
    model.fit(train, "label", text="body", **options)
    model.forget(forgotten, "label", text="body")
    assert model.classes_ == list(nb.classes_)
    np.testing.assert_allclose(probabilities(model, test),
                               nb.predict_proba(vectorizer.transform(test["body"])),
                               rtol=0, atol=1e-9)
    assert list(model.predict(test).df()["prediction"]) == list(
        nb.predict(vectorizer.transform(test["body"])))


def test_forget_with_sample_weights(con, corpus):
    train, test = corpus
    train = train.assign(w=np.linspace(0.5, 3.0, len(train)))
    forgotten, kept = train.iloc[::3], train.drop(index=train.index[::3])
    vectorizer, nb = sklearn_pipeline("bernoulli", {"binary": True}, {})
    vectorizer.fit(train["body"])
    nb.fit(vectorizer.transform(kept["body"]), kept["label"], sample_weight=kept["w"])
    model = sqlnb.NaiveBayes("weighted", con=con, family="bernoulli")
    model.fit(train, "label", text="body", weight="w", binary=True)
    model.forget(forgotten, "label", text="body", weight="w")
    np.testing.assert_allclose(probabilities(model, test),
                               nb.predict_proba(vectorizer.transform(test["body"])),
                               rtol=0, atol=1e-9)


@pytest.mark.parametrize("family", FAMILIES)
def test_fit_then_forget_equals_fit_on_the_rest(con, corpus, family):
    train, test = corpus
    # documents that are also among the kept ones: the rest alone gives the same vocabulary
    extra = train.iloc[:70].assign(label=train["label"].iloc[70:140].to_numpy())
    both = pd.concat([train, extra], ignore_index=True)
    model = sqlnb.NaiveBayes("both", con=con, family=family)
    model.fit(both, "label", text="body", ngram_range=(1, 2))
    model.forget(extra, "label", text="body")
    rest = sqlnb.NaiveBayes("rest", con=con, family=family)
    rest.fit(train, "label", text="body", ngram_range=(1, 2))
    np.testing.assert_allclose(probabilities(model, test), probabilities(rest, test),
                               rtol=0, atol=1e-9)
    assert statistics(con, "both") == statistics(con, "rest")


def test_forgetting_a_whole_class_removes_it(con, corpus):
    train, test = corpus
    news = train[train["label"] == "news"]
    vectorizer = CountVectorizer().fit(train["body"])
    rest = train[train["label"] != "news"]
    nb = SKLEARN["complement"]().fit(vectorizer.transform(rest["body"]), rest["label"])
    model = sqlnb.NaiveBayes("cls", con=con, family="complement")
    model.fit(train, "label", text="body").forget(news, "label", text="body")
    assert model.classes_ == ["ham", "spam"]
    np.testing.assert_allclose(probabilities(model, test),
                               nb.predict_proba(vectorizer.transform(test["body"])), atol=1e-9)


def test_forget_then_partial_fit_restores_the_model(con, corpus):
    train, test = corpus
    model = sqlnb.NaiveBayes("back", con=con, family="multinomial")
    model.fit(train, "label", text="body", tfidf=True)
    before = probabilities(model, test)
    model.forget(train.iloc[:50], "label", text="body")
    model.partial_fit(train.iloc[:50], "label", text="body")
    np.testing.assert_allclose(probabilities(model, test), before, rtol=0, atol=1e-12)


@pytest.mark.parametrize("never_learned, message", [
    (pd.DataFrame({"body": ["cheap money"], "label": ["other"]}), "class other"),
    (pd.DataFrame({"body": ["money " * 500], "label": ["spam"]}), "term 'money'"),
])
def test_forgetting_what_was_never_learned_raises_and_changes_nothing(con, corpus,
                                                                      never_learned, message):
    train, test = corpus
    model = sqlnb.NaiveBayes("never", con=con, family="multinomial")
    model.fit(train, "label", text="body")
    before, stats = probabilities(model, test), statistics(con, "never")
    with pytest.raises(InvalidDataError, match=message):
        model.forget(never_learned, "label", text="body")
    assert statistics(con, "never") == stats
    np.testing.assert_allclose(probabilities(model, test), before, rtol=0, atol=1e-12)


def test_forget_refuses_what_it_cannot_do(con, corpus):
    train, _ = corpus
    model = sqlnb.NaiveBayes("refused", con=con, family="bernoulli")
    with pytest.raises(NotFittedError):
        model.forget(train, "label", text="body")
    model.fit(train, "label", text="body")
    with pytest.raises(InvalidDataError, match="drop"):
        model.forget(train, "label", text="body")  # every document
    with pytest.raises(InvalidParameterError, match="reads text from 'body'"):
        model.forget(train.rename(columns={"body": "text"}), "label", text="text")
    with pytest.raises(InvalidParameterError, match=r"forget\(\.\.\., text=\.\.\.\)"):
        model.forget(train, "label")  # forget(..., text=...) is the text form
    assert model.classes_ == ["ham", "news", "spam"]


# --------------------------------------------------------------------- merge
@pytest.mark.parametrize("family, options", [
    ("multinomial", {}), ("multinomial", {"tfidf": True, "use_idf": False, "norm": "l1"}),
    ("complement", {"binary": True, "ngram_range": (1, 2)}),
    ("bernoulli", {}), ("bernoulli", {"tfidf": True, "use_idf": False}),
])
def test_merge_equals_fit_on_the_union(con, corpus, family, options):
    train, test = corpus
    first, second = train.iloc[:100], train.iloc[100:]
    sqlnb.NaiveBayes("first", con=con, family=family).fit(first, "label", text="body",
                                                          **options)
    sqlnb.NaiveBayes("second", con=con, family=family).fit(second, "label", text="body",
                                                           **options)
    merged = sqlnb.merge(con, ["first", "second"], into="merged")
    union = sqlnb.NaiveBayes("union", con=con, family=family)
    union.fit(train, "label", text="body", **options)
    np.testing.assert_allclose(probabilities(merged, test), probabilities(union, test),
                               rtol=0, atol=1e-9)
    assert list(merged.predict(test).df()["prediction"]) == list(
        union.predict(test).df()["prediction"])
    # the vocabulary table is the union fit's too: terms, numbering, df, occurrences
    vocabulary = "SELECT term, term_index, df, count, idf FROM {}_vocabulary ORDER BY 2"
    assert con.sql(vocabulary.format("merged")).fetchall() == con.sql(
        vocabulary.format("union")).fetchall()
    assert statistics(con, "merged") == statistics(con, "union")


def test_a_text_model_merges_others_into_itself(con, corpus):
    train, test = corpus
    parts = [train.iloc[:80], train.iloc[80:160], train.iloc[160:]]
    models = [sqlnb.NaiveBayes(f"part{i}", con=con, family="multinomial").fit(
        part, "label", text="body") for i, part in enumerate(parts)]
    models[0].merge(models[1], "part2")
    union = sqlnb.NaiveBayes("union", con=con, family="multinomial").fit(train, "label",
                                                                         text="body")
    np.testing.assert_allclose(probabilities(models[0], test), probabilities(union, test),
                               rtol=0, atol=1e-9)
    with pytest.raises(InvalidParameterError, match="more than once"):
        sqlnb.merge(con, ["part0", "PART0"], into="part0")


def test_models_continued_from_one_fit_merge_with_a_pruned_vocabulary(con, corpus):
    """Shards copied from one first fit share its vocabulary (and idf): their merge is the
    first fit updated with every shard's documents."""
    train, test = corpus
    base, one, two = train.iloc[:120], train.iloc[120:180], train.iloc[180:]
    options = {"min_df": 2, "tfidf": True}
    sqlnb.NaiveBayes("base", con=con, family="multinomial").fit(base, "label", text="body",
                                                                **options)
    shard = sqlnb.merge(con, ["base"], into="shard")  # a copy
    shard.partial_fit(two, "label", text="body").forget(base, "label", text="body")
    sqlnb.load(con, "base").partial_fit(one, "label", text="body")
    merged = sqlnb.merge(con, ["base", "shard"], into="merged")

    vectorizer, nb = sklearn_pipeline("multinomial", options, {})
    vectorizer.fit(base["body"])
    X = vectorizer.transform(train["body"])
    nb.fit(X, train["label"])
    np.testing.assert_allclose(probabilities(merged, test),
                               nb.predict_proba(vectorizer.transform(test["body"])), atol=1e-9)


@pytest.mark.parametrize("options, reason", [
    ({"min_df": 2}, "document frequency"),
    ({"max_features": 30}, "max_features"),
    ({"tfidf": True}, "idf"),
])
def test_merges_that_cannot_be_exact_are_refused(con, corpus, options, reason):
    train, test = corpus
    first = sqlnb.NaiveBayes("first", con=con, family="multinomial")
    first.fit(train.iloc[:100], "label", text="body", **options)
    sqlnb.NaiveBayes("second", con=con, family="multinomial").fit(
        train.iloc[100:], "label", text="body", **options)
    before = probabilities(first, test)
    with pytest.raises(InvalidParameterError, match=reason):
        first.merge("second")
    with pytest.raises(InvalidParameterError, match=reason):
        sqlnb.merge(con, ["first", "second"], into="merged")
    np.testing.assert_allclose(probabilities(first, test), before, rtol=0, atol=1e-12)
    assert con.sql("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'merged%'"
                   ).fetchall() == [(0,)]


def test_merge_refuses_models_read_or_fitted_differently(con, corpus):
    train, _ = corpus
    sqlnb.NaiveBayes("plain", con=con, family="multinomial").fit(train, "label", text="body")
    sqlnb.NaiveBayes("bigrams", con=con, family="multinomial").fit(
        train, "label", text="body", ngram_range=(1, 2))
    sqlnb.NaiveBayes("smooth", con=con, family="multinomial", alpha=0.5).fit(
        train, "label", text="body")
    sqlnb.NaiveBayes("other", con=con, family="complement").fit(train, "label", text="body")
    sqlnb.NaiveBayes("columns", con=con, family="multinomial").fit(
        pd.DataFrame({"x": [1, 2], "label": ["ham", "spam"]}), "label")
    for other, message in [("bigrams", "ngram_range"), ("smooth", "alpha"),
                           ("other", "family"), ("columns", "reads columns")]:
        with pytest.raises(InvalidParameterError, match=message):
            sqlnb.merge(con, ["plain", other], into="merged")


def test_long_input_models_merge_as_fit_on_the_union(con, corpus):
    train, test = corpus
    vectorizer = CountVectorizer().fit(train["body"])
    entries, docs = long_tables(vectorizer.transform(train["body"]), train["label"])
    test_entries, _ = long_tables(vectorizer.transform(test["body"]), test["label"])
    first, second = docs[docs.doc < 100], docs[docs.doc >= 100]
    for name, part in [("first", first), ("second", second)]:
        sqlnb.NaiveBayes(name, con=con, family="bernoulli").fit_long(
            entries[entries.doc.isin(part.doc)], "label", labels=part, document="doc",
            feature="term")
    merged = sqlnb.merge(con, ["first", "second"], into="merged")
    union = sqlnb.NaiveBayes("union", con=con, family="bernoulli")
    union.fit_long(entries, "label", labels=docs, document="doc", feature="term")
    np.testing.assert_allclose(probabilities(merged, test_entries),
                               probabilities(union, test_entries), rtol=0, atol=1e-9)
    assert statistics(con, "merged") == statistics(con, "union")


def test_text_models_of_an_attached_database_merge(con, corpus, tmp_path):
    train, test = corpus
    day = duckdb.connect(str(tmp_path / "day.duckdb"))
    sqlnb.NaiveBayes("nb", con=day, family="multinomial").fit(train.iloc[100:], "label",
                                                              text="body")
    day.close()
    con.execute(f"ATTACH '{tmp_path / 'day.duckdb'}' AS day")
    sqlnb.NaiveBayes("nb", con=con, family="multinomial").fit(train.iloc[:100], "label",
                                                              text="body")
    merged = sqlnb.merge(con, ["nb", "day.nb"], into="merged")
    union = sqlnb.NaiveBayes("union", con=con, family="multinomial").fit(train, "label",
                                                                         text="body")
    np.testing.assert_allclose(probabilities(merged, test), probabilities(union, test),
                               rtol=0, atol=1e-9)


# --------------------------------------------------------------------- SQL macros
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("options", ANALYZERS)
def test_macros_score_as_predict(con, corpus, family, options):
    train, test = corpus
    test = test.assign(id=range(len(test)))
    test.loc[3, "body"] = None  # a NULL text is an empty document
    model = sqlnb.NaiveBayes("mail", con=con, family=family)
    model.fit(train, "label", text="body", **options)
    con.register("test_df", test)
    rows = con.sql("SELECT id, mail_predict(t), mail_joint_log_likelihood(t), "
                   "mail_predict_proba(t) FROM test_df t ORDER BY id").fetchall()
    expected = model.predict_joint_log_proba("test_df").df()
    joint = expected[[f"jll_{c}" for c in model.classes_]].to_numpy()
    np.testing.assert_allclose([row[2] for row in rows], joint, rtol=0, atol=1e-9)
    assert [row[1] for row in rows] == list(model.predict("test_df").df()["prediction"])
    proba = probabilities(model, "test_df")
    np.testing.assert_allclose([[row[3][c] for c in model.classes_] for row in rows], proba,
                               rtol=0, atol=1e-9)
    # the table macro scores the documents together: every column, in the source's order
    scored = con.sql("SELECT * FROM mail_score('test_df')").df()
    assert list(scored.columns) == [*test.columns, "prediction"]
    assert list(scored["id"]) == list(test["id"])
    assert list(scored["prediction"]) == [row[1] for row in rows]


def test_macros_follow_every_write_of_a_text_model(con, corpus):
    train, test = corpus
    con.register("test_df", test)
    model = sqlnb.NaiveBayes("mail", con=con, family="multinomial")
    predicted = "SELECT mail_predict(t) FROM test_df t"

    def agree() -> None:
        assert [r[0] for r in con.sql(predicted).fetchall()] == list(
            model.predict("test_df").df()["prediction"])

    model.fit(train[train["label"] != "news"], "label", text="body")
    agree()
    model.partial_fit(train[train["label"] == "news"], "label", text="body")  # a new class
    assert "news" in con.sql("SELECT mail_predict_proba({'body': 'x'})").fetchall()[0][0]
    agree()
    model.forget(train[train["label"] == "ham"], "label", text="body")  # a class goes
    assert list(con.sql("SELECT mail_predict_proba({'body': 'x'})").fetchall()[0][0]) == [
        "news", "spam"]
    agree()
    sqlnb.merge(con, ["mail"], into="copy")
    assert con.sql("SELECT copy_predict(t) FROM test_df t").fetchall() == con.sql(
        predicted).fetchall()
    model.drop()
    assert con.sql("SELECT count(*) FROM duckdb_functions() WHERE function_name LIKE 'mail_%'"
                   ).fetchall() == [(0,)]


def test_imported_text_models_get_macros_and_long_models_none(con, corpus, tmp_path):
    train, test = corpus
    model = sqlnb.NaiveBayes("mail", con=con, family="bernoulli").fit(train, "label",
                                                                      text="body")
    other = duckdb.connect()
    moved = sqlnb.import_model(other, model.export(tmp_path / "mail"))
    other.register("test_df", test)
    assert [r[0] for r in other.sql("SELECT mail_predict(t) FROM test_df t").fetchall()] == (
        list(moved.predict("test_df").df()["prediction"]))
    entries, docs = long_tables(CountVectorizer().fit_transform(train["body"]), train["label"])
    sqlnb.NaiveBayes("lng", con=con, family="multinomial").fit_long(
        entries, "label", labels=docs, document="doc", feature="term")
    assert con.sql("SELECT count(*) FROM duckdb_functions() WHERE function_name LIKE 'lng_%'"
                   ).fetchall() == [(0,)]
    with pytest.raises(UnsupportedError, match="long-input"):
        sqlnb.load(con, "lng").create_macros()


# --------------------------------------------------------------------- to_sql
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("options", [ANALYZERS[2], ANALYZERS[3]])
def test_to_sql_scores_as_predict_without_the_model(con, corpus, family, options):
    train, test = corpus
    test = test.assign(id=range(len(test)))
    test.loc[5, "body"] = None
    model = sqlnb.NaiveBayes("mail", con=con, family=family)
    model.fit(train, "label", text="body", **options)
    fresh = duckdb.connect()  # no sqlnb table: every parameter is in the statement
    fresh.register("incoming", test)
    con.register("incoming", test)
    for output, method, prefix in [("predict", model.predict, None),
                                   ("proba", model.predict_proba, "proba_"),
                                   ("log_proba", model.predict_log_proba, "log_proba_"),
                                   ("joint", model.predict_joint_log_proba, "jll_")]:
        got = fresh.sql(model.to_sql("incoming", output=output)).df()
        expected = method("incoming").df()
        assert list(got.columns) == list(expected.columns)
        assert list(got["id"]) == list(test["id"])  # every column, in the source's order
        if prefix is None:
            assert list(got["prediction"]) == list(expected["prediction"])
        else:
            columns = [f"{prefix}{c}" for c in model.classes_]
            np.testing.assert_allclose(got[columns].to_numpy(), expected[columns].to_numpy(),
                                       rtol=0, atol=1e-9)
    fresh.close()


def test_to_sql_refuses_what_it_cannot_write(con, corpus):
    train, _ = corpus
    model = sqlnb.NaiveBayes("mail", con=con, family="multinomial").fit(train, "label",
                                                                        text="body")
    # a text model's statement is written in Spark SQL too (run on Spark in
    # tests/test_spark_text.py), its token pattern in Java's syntax
    spark_sql = model.to_sql("incoming", dialect="spark")
    assert "explode(" in spark_sql and "(?du)" in spark_sql and "unnest(" not in spark_sql
    entries, docs = long_tables(CountVectorizer().fit_transform(train["body"]), train["label"])
    long_model = sqlnb.NaiveBayes("lng", con=con, family="multinomial").fit_long(
        entries, "label", labels=docs, document="doc", feature="term")
    with pytest.raises(UnsupportedError, match="long-input"):
        long_model.to_sql("entries")
