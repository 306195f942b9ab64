"""Text and long-input models against scikit-learn's vectorizers and naive Bayes.

The oracle is always a scikit-learn pipeline with the same options on the same corpus:
predictions must be identical and probabilities within 1e-9.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import (
    ENGLISH_STOP_WORDS,
    CountVectorizer,
    TfidfVectorizer,
)
from sklearn.naive_bayes import BernoulliNB, ComplementNB, MultinomialNB

import sqlnb
import sqlnb.text
from sqlnb.errors import InvalidDataError, InvalidParameterError, UnknownColumnError
from sqlnb.stop_words import ENGLISH_STOP_WORDS as SHIPPED_STOP_WORDS
from sqlnb.text import splits_at_spaces, translate_pattern

SKLEARN = {"multinomial": MultinomialNB, "complement": ComplementNB, "bernoulli": BernoulliNB}
WORDS = [
    "Hello", "WORLD", "money", "Money", "offer", "cheap", "win", "meeting", "noon", "lunch",
    "report", "budget", "café", "naïve", "straße", "東京", "x1", "a_b", "2024", "don't",
    "e-mail", "a", "I", "the", "and", "of", "is", "über", "Ärger", "żółw", "niño", "٣٤",
    "Привет", "мир", "ok", "go", "data", "Data", "model", "sql", "__init__", "3.14",
]
SEPARATORS = [" ", "  ", ", ", ". ", "\n", "!", " - ", "\t", "? ", "; "]


def make_corpus(n_docs: int, seed: int) -> pd.DataFrame:
    """Documents of three classes, each drawing words with its own preferences."""
    rng = np.random.default_rng(seed)
    vocabulary = WORDS + [f"w{i}" for i in range(150)]
    preferences = rng.dirichlet(np.full(len(vocabulary), 0.3), size=3)
    bodies, labels = [], []
    for i in range(n_docs):
        label = i % 3
        length = int(rng.integers(0, 30)) if i % 17 else 0  # some empty documents
        words = rng.choice(vocabulary, size=length, p=preferences[label])
        seps = rng.choice(SEPARATORS, size=length)
        bodies.append("".join(w + s for w, s in zip(words, seps)))
        labels.append(["ham", "spam", "news"][label])
    return pd.DataFrame({"body": bodies, "label": labels})


@pytest.fixture(scope="module")
def corpus() -> tuple[pd.DataFrame, pd.DataFrame]:
    return make_corpus(300, 1), make_corpus(120, 2)


@pytest.fixture()
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    yield connection
    connection.close()


def sklearn_pipeline(family: str, options: dict, hyper: dict):
    options = dict(options)
    tfidf = options.pop("tfidf", False)
    vectorizer = (TfidfVectorizer if tfidf else CountVectorizer)(**options)
    return vectorizer, SKLEARN[family](**hyper)


def assert_parity(con, family, options, hyper, train, test, weight=None):
    vectorizer, nb = sklearn_pipeline(family, options, hyper)
    X = vectorizer.fit_transform(train["body"])
    nb.fit(X, train["label"], sample_weight=None if weight is None else train[weight])
    X_test = vectorizer.transform(test["body"])
    expected_pred = nb.predict(X_test)
    expected_proba = nb.predict_proba(X_test)

    con.register("train_df", train)
    con.register("test_df", test)
    model = sqlnb.NaiveBayes("nb", con=con, family=family, **hyper)
    model.fit("train_df", "label", text="body", weight=weight, **options)
    assert model.classes_ == list(nb.classes_)
    pred = model.predict("test_df").df()
    assert list(pred["body"]) == list(test["body"])  # input order and columns are kept
    assert list(pred["prediction"]) == list(expected_pred)
    proba = model.predict_proba("test_df").df()
    got = proba[[f"proba_{c}" for c in nb.classes_]].to_numpy()
    np.testing.assert_allclose(got, expected_proba, rtol=0, atol=1e-9)
    return model, vectorizer, nb


# --------------------------------------------------------------------- tokens
def test_default_pattern_becomes_unicode_word_runs():
    assert translate_pattern(r"(?u)\b\w\w+\b") == (r"[\p{L}\p{N}_][\p{L}\p{N}_]+", 0)


def test_capturing_group_is_extracted():
    assert translate_pattern(r"(\w+)@") == (r"([\p{L}\p{N}_]+)@", 1)


def test_document_frequencies_when_pruning(con, corpus):
    train, _ = corpus
    cv = CountVectorizer(min_df=2)
    X = cv.fit_transform(train["body"])
    sqlnb.NaiveBayes("df", con=con, family="multinomial").fit(train, "label", text="body",
                                                              min_df=2)
    rows = con.sql("SELECT term, df FROM df_vocabulary ORDER BY term_index").fetchall()
    assert [r[0] for r in rows] == list(cv.get_feature_names_out())
    assert [r[1] for r in rows] == list(np.asarray((X > 0).sum(axis=0)).ravel())


def test_shipped_stop_words_are_scikit_learns():
    assert set(SHIPPED_STOP_WORDS) == set(ENGLISH_STOP_WORDS)


@pytest.mark.parametrize("pattern", [
    r"(?u)\b\w\w+\b",
    r"(?u)\b\w+\b",
    r"\w+",
    r"[^\s,.!?;]+",
    r"\d+",
    r"(\w+)'",
    r"\b\w\w\w+\b",
    r"[\w-]+",
])
def test_vocabulary_matches_count_vectorizer(con, pattern):
    texts = [
        "Hello WORLD, hello again!", "café naïve straße über Ärger żółw niño",
        "東京 タワー 北京", "Привет, мир! ПРИВЕТ", "x1 a_b 2024 3.14 ٣٤ ١٢٣",
        "don't e-mail me at a.b@c.d", "tabs\tand\nnewlines\u00a0nbsp\u2003em-space",
        "", "a I o", "mixed123numbers and_underscores __init__",
    ]
    frame = pd.DataFrame({"body": texts, "label": [i % 2 for i in range(len(texts))]})
    cv = CountVectorizer(token_pattern=pattern)
    X = cv.fit_transform(frame["body"])
    model = sqlnb.NaiveBayes("tok", con=con, family="multinomial")
    model.fit(frame, "label", text="body", token_pattern=pattern)
    rows = con.sql("SELECT term, df, count FROM tok_vocabulary ORDER BY term_index").fetchall()
    assert [r[0] for r in rows] == list(cv.get_feature_names_out())
    df = np.asarray((X > 0).sum(axis=0)).ravel()
    if splits_at_spaces(pattern):  # the fast path does not count documents
        assert all(r[1] is None for r in rows)
    else:
        assert [r[1] for r in rows] == list(df)
    assert [r[2] for r in rows] == list(np.asarray(X.sum(axis=0)).ravel())


def test_other_word_boundaries_stay_ascii(con):
    # Only a \b that guards a run of \w is translated; others keep RE2's ASCII meaning.
    frame = pd.DataFrame({"body": ["über cafe", "Ärger"], "label": [0, 1]})
    model = sqlnb.NaiveBayes("asc", con=con, family="multinomial")
    model.fit(frame, "label", text="body", token_pattern=r"\b[a-z]{3,}\b")
    terms = [r[0] for r in con.sql("SELECT term FROM asc_vocabulary ORDER BY term").fetchall()]
    assert terms == ["ber", "cafe", "rger"]  # Python's re finds only "cafe"


def test_documented_lowercase_differences(con):
    # DuckDB's lower() has no final sigma and keeps dotted capital I as plain i.
    frame = pd.DataFrame({"body": ["ΟΔΟΣ İstanbul"], "label": [1]})
    sqlnb.NaiveBayes("low", con=con, family="multinomial").fit(frame, "label", text="body")
    terms = [r[0] for r in con.sql("SELECT term FROM low_vocabulary ORDER BY term").fetchall()]
    assert terms == ["istanbul", "οδοσ"]
    assert CountVectorizer().fit(frame["body"]).get_feature_names_out().tolist() == [
        "stanbul", "οδος"]


# --------------------------------------------------------------------- parity
COUNT_OPTIONS = [
    {},
    {"ngram_range": (1, 2), "stop_words": "english"},
    {"ngram_range": (2, 3)},
    {"min_df": 2, "max_df": 0.5},
    {"min_df": 0.05, "max_df": 40},
    {"max_features": 39},  # no tie at the cut: numpy's sort breaks ties arbitrarily
    {"binary": True},
    {"lowercase": False},
    {"token_pattern": r"(?u)\b\w+\b", "stop_words": ["money", "win", "w1"]},
]


@pytest.mark.parametrize("options", COUNT_OPTIONS)
def test_count_vectorizer_multinomial(con, corpus, options):
    assert_parity(con, "multinomial", options, {}, *corpus)


@pytest.mark.parametrize("options", [{}, {"ngram_range": (1, 2), "min_df": 2}])
@pytest.mark.parametrize("hyper", [{}, {"norm": True}, {"alpha": 0.3}])
def test_count_vectorizer_complement(con, corpus, options, hyper):
    assert_parity(con, "complement", options, hyper, *corpus)


@pytest.mark.parametrize("options", [{}, {"ngram_range": (1, 2), "stop_words": "english"}])
@pytest.mark.parametrize("hyper", [{}, {"alpha": 0.5, "fit_prior": False}, {"binarize": 1.5}])
def test_count_vectorizer_bernoulli(con, corpus, options, hyper):
    assert_parity(con, "bernoulli", options, hyper, *corpus)


TFIDF_OPTIONS = [
    {"tfidf": True},
    {"tfidf": True, "ngram_range": (1, 2), "sublinear_tf": True},
    {"tfidf": True, "norm": "l1", "smooth_idf": False},
    {"tfidf": True, "norm": None},
    {"tfidf": True, "use_idf": False},
    {"tfidf": True, "use_idf": False, "norm": None, "sublinear_tf": True},
    {"tfidf": True, "binary": True, "max_features": 60, "stop_words": "english"},
]


@pytest.mark.parametrize("options", TFIDF_OPTIONS)
def test_tfidf_vectorizer_multinomial(con, corpus, options):
    _, vectorizer, _ = assert_parity(con, "multinomial", options, {}, *corpus)
    if options.get("use_idf", True):
        idf = [r[0] for r in con.sql("SELECT idf FROM nb_vocabulary ORDER BY term_index")
               .fetchall()]
        np.testing.assert_allclose(idf, vectorizer.idf_, rtol=1e-12)


@pytest.mark.parametrize("family", ["complement", "bernoulli"])
def test_tfidf_vectorizer_other_families(con, corpus, family):
    assert_parity(con, family, {"tfidf": True}, {}, *corpus)


def test_sample_weight(con, corpus):
    train, test = corpus
    train = train.assign(w=np.linspace(0.5, 2.0, len(train)))
    assert_parity(con, "multinomial", {"ngram_range": (1, 2)}, {}, train, test, weight="w")


def test_log_and_joint_outputs(con, corpus):
    model, vectorizer, nb = assert_parity(con, "multinomial", {}, {}, *corpus)
    X_test = vectorizer.transform(corpus[1]["body"])
    got = model.predict_log_proba("test_df").df()
    np.testing.assert_allclose(got[[f"log_proba_{c}" for c in nb.classes_]].to_numpy(),
                               nb.predict_log_proba(X_test), atol=1e-9)
    got = model.predict_joint_log_proba("test_df").df()
    np.testing.assert_allclose(got[[f"jll_{c}" for c in nb.classes_]].to_numpy(),
                               nb.predict_joint_log_proba(X_test), atol=1e-9)


def test_unseen_terms_are_ignored(con, corpus):
    train, _ = corpus
    test = pd.DataFrame({"body": ["zebra quokka", "money zebra offer", None], "label": 0})
    vectorizer = CountVectorizer().fit(train["body"])
    nb = MultinomialNB().fit(vectorizer.transform(train["body"]), train["label"])
    model = sqlnb.NaiveBayes("nb", con=con, family="multinomial").fit(train, "label",
                                                                      text="body")
    proba = model.predict_proba(test).df()[[f"proba_{c}" for c in nb.classes_]].to_numpy()
    expected = nb.predict_proba(vectorizer.transform(["zebra quokka", "money zebra offer", ""]))
    np.testing.assert_allclose(proba, expected, atol=1e-9)


def test_parquet_in_and_out(con, corpus, tmp_path):
    train, test = corpus
    train.to_parquet(tmp_path / "train.parquet")
    test.to_parquet(tmp_path / "test.parquet")
    model = sqlnb.NaiveBayes("pq", con=con, family="multinomial")
    model.fit(str(tmp_path / "train.parquet"), "label", text="body", stop_words="english")
    model.predict(str(tmp_path / "test.parquet")).write_parquet(str(tmp_path / "out.parquet"))
    out = pd.read_parquet(tmp_path / "out.parquet")
    vectorizer = CountVectorizer(stop_words="english")
    nb = MultinomialNB().fit(vectorizer.fit_transform(train["body"]), train["label"])
    assert list(out["prediction"]) == list(nb.predict(vectorizer.transform(test["body"])))


def test_model_reloads_with_its_analyzer(con, corpus, tmp_path):
    train, test = corpus
    path = str(tmp_path / "models.duckdb")
    first = duckdb.connect(path)
    options = {"tfidf": True, "ngram_range": (1, 2), "stop_words": "english", "min_df": 2}
    sqlnb.NaiveBayes("saved", con=first, family="complement").fit(
        train, "label", text="body", **options)
    expected = sqlnb.load(first, "saved").predict_proba(test).df()
    first.close()
    again = duckdb.connect(path)
    model = sqlnb.load(again, "saved")
    got = model.predict_proba(test).df()
    pd.testing.assert_frame_equal(got, expected)
    vectorizer, nb = sklearn_pipeline("complement", options, {})
    nb.fit(vectorizer.fit_transform(train["body"]), train["label"])
    assert list(model.predict(test).df()["prediction"]) == list(
        nb.predict(vectorizer.transform(test["body"])))
    again.close()


def test_partial_fit_keeps_the_first_vocabulary(con, corpus):
    train, test = corpus
    first, second = train.iloc[:150], train.iloc[150:]
    vectorizer = CountVectorizer(ngram_range=(1, 2)).fit(first["body"])
    nb = MultinomialNB()
    nb.partial_fit(vectorizer.transform(first["body"]), first["label"],
                   classes=sorted(train["label"].unique()))
    nb.partial_fit(vectorizer.transform(second["body"]), second["label"])
    model = sqlnb.NaiveBayes("inc", con=con, family="multinomial")
    model.partial_fit(first, "label", text="body", ngram_range=(1, 2))
    model.partial_fit(second, "label", text="body")
    proba = model.predict_proba(test).df()[[f"proba_{c}" for c in nb.classes_]].to_numpy()
    np.testing.assert_allclose(proba, nb.predict_proba(vectorizer.transform(test["body"])),
                               atol=1e-9)


def test_refit_replaces_the_vocabulary(con, corpus):
    train, _ = corpus
    model = sqlnb.NaiveBayes("re", con=con, family="multinomial")
    model.fit(train, "label", text="body", ngram_range=(1, 3))
    model.fit(train, "label", text="body", max_features=10)
    assert con.execute("SELECT count(*) FROM re_vocabulary").fetchone()[0] == 10
    assert con.execute("SELECT count(*) FROM re_features").fetchone()[0] == 10


# --------------------------------------------------------------------- long input
def long_tables(X, labels, weights=None):
    coo = sp.coo_matrix(X)
    entries = pd.DataFrame({"doc": coo.row, "term": [f"f{j}" for j in coo.col],
                            "value": coo.data.astype(float)})
    docs = pd.DataFrame({"doc": np.arange(X.shape[0]), "label": labels})
    if weights is not None:
        docs["w"] = weights
    return entries, docs


@pytest.mark.parametrize("family", ["multinomial", "complement", "bernoulli"])
def test_long_input_with_a_labels_table(con, corpus, family):
    train, test = corpus
    vectorizer = CountVectorizer().fit(train["body"])
    X, X_test = vectorizer.transform(train["body"]), vectorizer.transform(test["body"])
    nb = SKLEARN[family]().fit(X, train["label"])
    entries, docs = long_tables(X, train["label"])
    test_entries, _ = long_tables(X_test, test["label"])
    model = sqlnb.NaiveBayes("lng", con=con, family=family)
    model.fit_long(entries, "label", labels=docs, document="doc", feature="term")
    proba = model.predict_proba(test_entries).df()
    # documents without entries do not appear; compare those that do
    present = proba["doc"].to_numpy()
    np.testing.assert_allclose(proba[[f"proba_{c}" for c in nb.classes_]].to_numpy(),
                               nb.predict_proba(X_test[present]), atol=1e-9)
    pred = model.predict(test_entries).df()
    assert list(pred["prediction"]) == list(nb.predict(X_test[present]))


def test_long_input_in_one_table_with_hashed_features(con):
    rng = np.random.default_rng(3)
    X = sp.random(200, 64, density=0.1, random_state=rng, format="coo")
    X.data = np.ceil(X.data * 5)
    y = rng.integers(0, 3, 200)
    # a document with no entries is not in the one-table form: sklearn fits the others
    seen = np.unique(X.row)
    nb = MultinomialNB().fit(X.tocsr()[seen], y[seen])
    one = pd.DataFrame({"document": X.row, "feature": X.col, "value": X.data, "y": y[X.row]})
    model = sqlnb.NaiveBayes("hashed", con=con, family="multinomial")
    model.fit_long(one, "y")
    proba = model.predict_proba(one.drop(columns="y")).df()
    present = proba["document"].to_numpy()
    np.testing.assert_allclose(proba[["proba_0", "proba_1", "proba_2"]].to_numpy(),
                               nb.predict_proba(X.tocsr()[present]), atol=1e-9)
    counts = dict(con.sql("SELECT class, n FROM hashed_class_stats").fetchall())
    assert counts == {c: int(np.sum(y[seen] == c)) for c in range(3)}


def test_partial_fit_long_grows_the_features(con):
    rng = np.random.default_rng(4)
    dense = np.ceil(sp.random(120, 30, density=0.2, random_state=rng).toarray() * 4)
    dense[:60, 20:] = 0  # the first batch never sees features 20..29
    X = sp.csr_matrix(dense)
    y = rng.integers(0, 2, 120)
    entries, docs = long_tables(X, y, weights=np.linspace(1, 2, 120))
    model = sqlnb.NaiveBayes("grow", con=con, family="multinomial")
    first_docs, second_docs = docs.iloc[:60], docs.iloc[60:]
    model.partial_fit_long(entries[entries.doc < 60], "label", labels=first_docs, weight="w",
                           document="doc", feature="term")
    model.partial_fit_long(entries[entries.doc >= 60], "label", labels=second_docs,
                           weight="w", document="doc", feature="term")
    assert con.execute("SELECT count(*) FROM grow_features").fetchone()[0] == X.shape[1] - int(
        np.sum(np.asarray(X.sum(axis=0)).ravel() == 0))
    used = np.asarray(X.sum(axis=0)).ravel() > 0
    nb_used = MultinomialNB().fit(X[:, used], y, sample_weight=np.linspace(1, 2, 120))
    proba = model.predict_proba(entries).df()
    present = proba["doc"].to_numpy()
    np.testing.assert_allclose(proba[["proba_0", "proba_1"]].to_numpy(),
                               nb_used.predict_proba(X[present][:, used]), atol=1e-9)


def test_long_input_rejects_two_labels_for_a_document(con):
    one = pd.DataFrame({"document": [1, 1], "feature": ["a", "b"], "value": [1.0, 2.0],
                        "y": ["x", "z"]})
    model = sqlnb.NaiveBayes("dup", con=con, family="multinomial")
    with pytest.raises(InvalidDataError, match="more than one label"):
        model.fit_long(one, "y")


# --------------------------------------------------------------------- errors
def test_text_needs_a_count_family(con, corpus):
    with pytest.raises(InvalidParameterError, match="count family"):
        sqlnb.NaiveBayes("g", con=con).fit(corpus[0], "label", text="body")


def test_text_column_must_be_text(con):
    frame = pd.DataFrame({"body": [1, 2], "label": [0, 1]})
    with pytest.raises(InvalidDataError, match="VARCHAR"):
        sqlnb.NaiveBayes("n", con=con, family="multinomial").fit(frame, "label", text="body")


def test_unknown_text_column(con, corpus):
    with pytest.raises(UnknownColumnError):
        sqlnb.NaiveBayes("n", con=con, family="multinomial").fit(corpus[0], "label",
                                                                 text="nope")


@pytest.mark.parametrize("options, message", [
    ({"norm": "l1"}, "tfidf=True"),
    ({"ngram": (1, 2)}, "unknown text option"),
    ({"ngram_range": (2, 1)}, "ngram_range"),
    ({"min_df": 1.5}, "proportion"),
    ({"max_features": 0}, "max_features"),
    ({"token_pattern": r"(a)(b)"}, "capturing group"),
    ({"min_df": 10, "max_df": 2}, "max_df corresponds"),
    ({"min_df": 1000, "max_df": 5000}, "no terms remain"),
])
def test_bad_options_raise_and_write_nothing(con, corpus, options, message):
    model = sqlnb.NaiveBayes("bad", con=con, family="multinomial")
    with pytest.raises(InvalidParameterError if "remain" not in message else InvalidDataError,
                       match=message):
        model.fit(corpus[0], "label", text="body", **options)
    tables = con.sql("SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'bad%'")
    assert tables.fetchall() == []


def test_partial_fit_takes_no_new_options(con, corpus):
    model = sqlnb.NaiveBayes("p", con=con, family="multinomial")
    model.partial_fit(corpus[0], "label", text="body")
    with pytest.raises(InvalidParameterError, match="fixed by the first fit"):
        model.partial_fit(corpus[0], "label", text="body", binary=True)


def test_many_classes_take_the_long_fast_path(con, corpus, monkeypatch):
    # beyond WIDE_CLASSES classes the fast path groups by class and chunk instead
    monkeypatch.setattr(sqlnb.text, "WIDE_CLASSES", 2)
    assert_parity(con, "multinomial", {"stop_words": "english"}, {}, *corpus)


def test_top_terms_are_the_largest_log_probabilities(con, corpus):
    model, vectorizer, nb = assert_parity(con, "multinomial", {"stop_words": "english"}, {},
                                          *corpus)
    rows = sqlnb.text.top_terms(model, 3).fetchall()
    names = vectorizer.get_feature_names_out()
    for index, label in enumerate(nb.classes_):
        order = np.lexsort((names, -nb.feature_log_prob_[index]))[:3]
        got = [(term, coef) for c, term, coef in rows if c == label]
        assert [t for t, _ in got] == list(names[order])
        np.testing.assert_allclose([c for _, c in got], nb.feature_log_prob_[index][order])


@pytest.mark.parametrize("options", [{}, {"tfidf": True, "ngram_range": (1, 2)}])
def test_a_very_long_document(con, corpus, options):
    train, _ = corpus
    rng = np.random.default_rng(5)
    words = np.array(["money", "offer", "noon", "lunch", "report", "w1", "w2", "zebra"])
    long_text = " ".join(rng.choice(words, 200_000))
    test = pd.DataFrame({"body": [long_text, "money offer"], "label": "x"})
    vectorizer, nb = sklearn_pipeline("multinomial", options, {})
    nb.fit(vectorizer.fit_transform(train["body"]), train["label"])
    model = sqlnb.NaiveBayes("long", con=con, family="multinomial")
    model.fit(train, "label", text="body", **options)
    got = model.predict_joint_log_proba(test).df()[[f"jll_{c}" for c in nb.classes_]]
    expected = nb.predict_joint_log_proba(vectorizer.transform(test["body"]))
    # 200,000 terms summed in another order: equal to about 1e-12 relative
    np.testing.assert_allclose(got.to_numpy(), expected, rtol=1e-11, atol=1e-9)
    assert list(model.predict(test).df()["prediction"]) == list(
        nb.predict(vectorizer.transform(test["body"])))


def test_drop_and_refit_as_a_column_model(con, corpus):
    train, _ = corpus
    model = sqlnb.NaiveBayes("swap", con=con, family="multinomial")
    model.fit(train, "label", text="body")
    numbers = pd.DataFrame({"a": [1.0, 2.0, 0.0, 3.0], "b": [0.0, 1.0, 2.0, 1.0],
                            "y": [0, 1, 0, 1]})
    model.fit(numbers, "y")  # a column model now: the text tables are gone
    names = {r[0] for r in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert "swap_vocabulary" not in names and "swap_analyzer" not in names
    expected = MultinomialNB().fit(numbers[["a", "b"]], numbers["y"]).predict_proba(
        numbers[["a", "b"]])
    got = model.predict_proba(numbers).df()[["proba_0", "proba_1"]].to_numpy()
    np.testing.assert_allclose(got, expected, atol=1e-12)
    model.drop()
    assert not [r for r in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()
                if r[0].startswith("swap_")]


def test_a_long_model_reloads(con, corpus, tmp_path):
    train, test = corpus
    vectorizer = CountVectorizer().fit(train["body"])
    X, X_test = vectorizer.transform(train["body"]), vectorizer.transform(test["body"])
    entries, docs = long_tables(X, train["label"])
    test_entries, _ = long_tables(X_test, test["label"])
    sqlnb.NaiveBayes("lr", con=con, family="complement").fit_long(
        entries, "label", labels=docs, document="doc", feature="term")
    model = sqlnb.load(con, "lr")
    nb = ComplementNB().fit(X, train["label"])
    pred = model.predict(test_entries).df()
    assert list(pred["prediction"]) == list(nb.predict(X_test[pred["doc"].to_numpy()]))


def test_partial_fit_does_not_replace_a_column_model(con, corpus):
    numbers = pd.DataFrame({"a": [1.0, 2.0], "body": ["x y", "y z"], "y": [0, 1]})
    model = sqlnb.NaiveBayes("cols", con=con, family="multinomial").fit(numbers, "y",
                                                                        features=["a"])
    with pytest.raises(InvalidParameterError, match="fitted on columns"):
        model.partial_fit(numbers, "y", text="body")
    assert model.features_ == ["a"]


def test_column_model_features_are_refused_clearly_for_text_models(con):
    from sqlnb.errors import InvalidParameterError

    docs = pd.DataFrame({"body": ["cheap pills now", "meeting at noon", "cheap pills",
                                  "lunch at noon"], "label": ["spam", "ham", "spam", "ham"]})
    model = sqlnb.NaiveBayes("guarded", con=con, family="multinomial")
    model.fit(docs, "label", text="body")
    before = model.predict_proba(docs).fetchall()
    with pytest.raises(InvalidParameterError, match="text or long-input model"):
        model.forget(docs, "label")
    with pytest.raises(InvalidParameterError, match="text or long-input model"):
        model.partial_fit(docs, "label")  # without text=
    assert model.predict_proba(docs).fetchall() == before
