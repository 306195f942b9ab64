"""Searches over a text column.

The oracle is GridSearchCV over Pipeline([CountVectorizer, <family>NB]) with the same folds
(PredefinedSplit on the fold column): the vectorizer is refitted on every training set, so
each fold's model has its own vocabulary. With weights, scikit-learn's metadata routing
sends sample_weight to the naive Bayes step and to every scorer.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn import naive_bayes as sk
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import get_scorer
from sklearn.model_selection import GridSearchCV, PredefinedSplit
from sklearn.pipeline import Pipeline

import sqlnb
from sqlnb.errors import (
    InvalidDataError,
    InvalidParameterError,
    NameConflictError,
    UnknownColumnError,
    UnsupportedError,
)
from tests.conftest import flat

SCORERS = ["accuracy", "neg_log_loss", "f1_macro"]
ESTIMATORS = {"multinomial": sk.MultinomialNB, "complement": sk.ComplementNB,
              "bernoulli": sk.BernoulliNB}
WORDS = {
    "ant": ["dig", "tunnel", "queen", "colony", "sugar", "march"],
    "bee": ["honey", "hive", "queen", "flower", "buzz", "sugar"],
    "cat": ["purr", "nap", "mouse", "milk", "sugar", "march"],
}


def _corpus(seed: int = 0, n: int = 36) -> pd.DataFrame:
    """Short documents of three classes whose words overlap; some words (``rare*``) are in
    one document only, so each fold's vocabulary differs; a weight and folds 0, 1, 2."""
    rng = np.random.default_rng(seed)
    labels = np.array(["ant", "bee", "cat"])[np.arange(n) % 7 % 3]
    pool = sorted({w for words in WORDS.values() for w in words})
    documents = []
    for i, label in enumerate(labels):
        own = rng.choice(WORDS[label], size=rng.integers(1, 4))
        noise = rng.choice(pool, size=rng.integers(0, 3))
        words = [*own, *noise] + ([f"rare{i}"] if i % 5 == 0 else [])
        documents.append(" ".join(rng.permutation(words)))
    return pd.DataFrame({"body": documents, "y": labels,
                         "w": rng.integers(1, 4, size=n).astype(float),
                         "fold": (np.arange(n) // 4) % 3})


def _oracle(family: str, frame: pd.DataFrame, grid: dict, weighted: bool,
            vectorizer: dict | None = None, scoring=SCORERS, refit="neg_log_loss"
            ) -> GridSearchCV:
    """GridSearchCV over the vectorizer and the naive Bayes step (grid names prefixed)."""
    prefixed = {(f"nb__{k}" if k in sk.MultinomialNB().get_params()
                 or k in ("norm", "binarize") else f"vec__{k}"): v for k, v in grid.items()}
    with sklearn.config_context(enable_metadata_routing=True):
        nb = ESTIMATORS[family]().set_fit_request(sample_weight=weighted)
        scorers = {name: get_scorer(name).set_score_request(sample_weight=weighted)
                   for name in scoring}
        search = GridSearchCV(
            Pipeline([("vec", CountVectorizer(**(vectorizer or {}))), ("nb", nb)]),
            prefixed, cv=PredefinedSplit(frame["fold"].to_numpy()), scoring=scorers,
            refit=refit)
        extra = {"sample_weight": frame["w"].to_numpy()} if weighted else {}
        return search.fit(frame["body"], frame["y"].to_numpy(), **extra)


def _columns(scorers=SCORERS, n_splits: int = 3) -> list[str]:
    columns = []
    for scorer in scorers:
        columns += [f"split{k}_test_{scorer}" for k in range(n_splits)]
        columns += [f"mean_test_{scorer}", f"std_test_{scorer}"]
    return columns


def _assert_scores_equal(result, oracle, scorers=SCORERS):
    ours = result.cv_results_.df()
    columns = _columns(scorers)
    assert flat(ours[columns].itertuples(index=False)) == pytest.approx(
        flat(zip(*(oracle.cv_results_[c] for c in columns))), rel=0, abs=1e-9)
    for scorer in scorers:
        assert list(ours[f"rank_test_{scorer}"]) == list(oracle.cv_results_[f"rank_test_{scorer}"])


GRIDS = {
    "multinomial": {"alpha": [0.05, 1.0, 4.0], "fit_prior": [True, False]},
    "complement": {"alpha": [0.1, 2.0], "norm": [False, True]},
    "bernoulli": {"alpha": [0.3, 1.0, 3.0]},
}


@pytest.fixture(scope="module",
                params=[(f, w) for f in GRIDS for w in (False, True)],
                ids=[f"{f}-{'weighted' if w else 'unweighted'}" for f in GRIDS for w in (0, 1)])
def searched(request):
    """One text search and its GridSearchCV oracle per family, weighted and not."""
    family, weighted = request.param
    frame = _corpus(seed=len(family))
    model = sqlnb.NaiveBayes("m", con=duckdb.connect(), family=family)
    result = model.search(frame, "y", text="body", weight="w" if weighted else None,
                          param_grid=GRIDS[family], cv="fold", scoring=SCORERS,
                          refit="neg_log_loss")
    return frame, _oracle(family, frame, GRIDS[family], weighted), model, result


def test_every_candidates_scores_equal_grid_search_cv_over_the_pipeline(searched):
    _, oracle, _, result = searched
    _assert_scores_equal(result, oracle)


def test_best_params_equal_grid_search_cvs(searched):
    _, oracle, _, result = searched
    assert {f"nb__{k}": v for k, v in result.best_params_.items()} == oracle.best_params_
    assert result.best_score_ == pytest.approx(oracle.best_score_, rel=0, abs=1e-9)


def test_the_refitted_text_model_equals_best_estimator(searched):
    frame, oracle, model, result = searched
    assert result.best_estimator_ is model
    proba = model.predict_proba(frame[["body"]]).df()[[f"proba_{c}" for c in model.classes_]]
    assert flat(proba.itertuples(index=False)) == pytest.approx(
        flat(oracle.best_estimator_.predict_proba(frame["body"])), rel=0, abs=1e-9)


OPTION_GRIDS = [
    ({"ngram_range": [(1, 1), (1, 2)], "alpha": [0.5, 2.0]}, {}),
    ({"min_df": [1, 2, 0.1], "max_df": [1.0, 0.3]}, {}),
    # cut-offs where no fold has a tie: scikit-learn orders tied terms as its unstable
    # argsort happens to (sqlnb, as its fit does, alphabetically)
    ({"max_features": [2, 4], "binary": [False, True]}, {}),
    ({"lowercase": [True, False], "alpha": [1.0]}, {"stop_words": ["sugar", "queen"]}),
    ({"alpha": [0.2, 1.0]}, {"token_pattern": r"(?u)\b\w+\b", "ngram_range": (2, 2),
                             "min_df": 2}),
]


@pytest.mark.parametrize("grid, fixed", OPTION_GRIDS,
                         ids=["ngram_range", "min_df-max_df", "max_features-binary",
                              "lowercase-stop_words", "fixed-options"])
def test_grids_over_text_options_score_as_grid_search_cv(grid, fixed):
    # each training set's document frequencies decide its vocabulary
    frame = _corpus(seed=7)
    frame.loc[frame.index % 3 == 0, "body"] = frame["body"].str.upper()
    model = sqlnb.NaiveBayes("m", con=duckdb.connect(), family="multinomial")
    result = model.search(frame, "y", text="body", param_grid=grid, cv="fold",
                          scoring=SCORERS, refit=False, **fixed)
    _assert_scores_equal(result, _oracle("multinomial", frame, grid, False, fixed,
                                         refit=False))


def test_hostile_tokens_and_labels_score_as_grid_search_cv():
    frame = _corpus(seed=11)
    frame["y"] = frame["y"].map({"ant": "it's", "bee": 'say "hi"\\', "cat": "ünï 🐝"})
    frame["body"] = (frame["body"] + np.where(frame.index % 2 == 0, " o'neil \\back",
                                              " naïve ünïcode 'quoted' ")
                     + np.where(frame.index % 3 == 0, " --comment */ x", ""))
    grid = {"alpha": [0.5, 1.0], "token_pattern": [r"(?u)\b\w\w+\b", r"[^ ]+"]}
    model = sqlnb.NaiveBayes("m", con=duckdb.connect(), family="complement")
    result = model.search(frame, "y", text="body", param_grid=grid, cv="fold",
                          scoring=SCORERS, refit="accuracy")
    oracle = _oracle("complement", frame, grid, False, refit="accuracy")
    _assert_scores_equal(result, oracle)
    proba = model.predict_proba(frame[["body"]]).df()[[f"proba_{c}" for c in model.classes_]]
    assert flat(proba.itertuples(index=False)) == pytest.approx(
        flat(oracle.best_estimator_.predict_proba(frame["body"])), rel=0, abs=1e-9)


@pytest.mark.parametrize("family", ["multinomial", "bernoulli"])
def test_a_class_missing_from_a_training_set_scores_as_grid_search_cv(family):
    # class "z" has documents in fold 0 only: fold 0's model never saw it
    frame = _corpus(seed=5)
    frame.loc[:3, "y"] = "z"
    frame.loc[:3, "fold"] = 0
    grid = {"alpha": [0.1, 1.0]}
    model = sqlnb.NaiveBayes("m", con=duckdb.connect(), family=family)
    result = model.search(frame, "y", text="body", param_grid=grid, cv="fold",
                          scoring=["accuracy", "f1_macro"], refit=False)
    _assert_scores_equal(result, _oracle(family, frame, grid, False,
                                         scoring=["accuracy", "f1_macro"], refit=False),
                         scorers=["accuracy", "f1_macro"])


def _full_reads(con, path) -> int:
    """Queries that read at least half of the file's bytes (DuckDB's file-system log)."""
    size = path.stat().st_size
    rows = con.execute(
        "SELECT sum(CAST(json_extract_string(message, '$.bytes') AS BIGINT)) "
        "FROM duckdb_logs WHERE type = 'FileSystem' "
        "AND json_extract_string(message, '$.path') = ? "
        "AND json_extract_string(message, '$.op') = 'READ' GROUP BY query_id",
        [str(path)]).fetchall()
    return sum(bytes_read >= 0.5 * size for (bytes_read,) in rows)


@pytest.mark.parametrize("grid, reads", [
    ({"alpha": [0.1, 1.0], "fit_prior": [True, False]}, 2),  # derived only: two reads
    ({"alpha": [1.0], "min_df": [1, 2], "max_features": [None, 5]}, 2),  # vocabulary only
    ({"alpha": [1.0], "ngram_range": [(1, 1), (1, 2)]}, 4),  # two ways to count terms
], ids=["derived", "pruning", "ngram_range"])
def test_a_text_search_reads_the_source_twice_per_way_of_counting_terms(tmp_path, grid, reads):
    frame = pd.concat([_corpus(seed=s, n=300) for s in range(10)], ignore_index=True)
    path = tmp_path / "documents.parquet"
    frame.to_parquet(path, row_group_size=500)
    con = duckdb.connect()
    con.execute("SET enable_external_file_cache = false")
    con.execute("CALL enable_logging('FileSystem')")
    sqlnb.NaiveBayes("m", con=con, family="multinomial").search(
        str(path), "y", text="body", cv="fold", param_grid=grid, refit=False)
    assert _full_reads(con, path) == reads


def test_hashed_folds_give_as_many_splits_and_leave_nothing_behind():
    con = duckdb.connect()
    con.register("documents", _corpus(n=60))
    model = sqlnb.NaiveBayes("m", con=con, family="multinomial")
    result = model.search("documents", "y", text="body", cv=4, param_grid={"alpha": [1.0, 2.0]},
                          refit=False)
    again = model.search("documents", "y", text="body", cv=4,
                         param_grid={"alpha": [1.0, 2.0]}, refit=False)
    assert result.n_splits_ == 4
    assert result.cv_results_.fetchall() == again.cv_results_.fetchall()
    names = {n for (n,) in con.sql("SELECT table_name FROM information_schema.tables")
             .fetchall()}
    assert names == {"documents"}


BAD_TEXT_SEARCHES = [
    ({"tfidf": True}, UnsupportedError, "not tf-idf weighting"),
    ({"param_grid": {"use_idf": [True]}}, UnsupportedError, "not tf-idf weighting"),
    ({"group_by": "fold"}, InvalidParameterError, "text, weight or group column"),
    ({"group_by": "y"}, InvalidParameterError, "cannot also be the target"),
    ({"group_by": "nowhere"}, UnknownColumnError, "group column 'nowhere'"),
    ({"param_grid": {"var_smoothing": [1.0]}}, InvalidParameterError,
     "no hyperparameter 'var_smoothing'"),
    ({"param_grid": {"alpha": [[1.0, 2.0]]}}, InvalidParameterError, "single alpha"),
    ({"param_grid": {"min_df": [0.99]}}, InvalidDataError, "leave no terms after pruning"),
    ({"param_grid": {"ngram_range": [(2, 1)]}}, InvalidParameterError, "ngram_range"),
    ({"param_grid": {"token_pattern": [r"(?=a)\w+"]}}, InvalidParameterError, "RE2"),
    ({"text": "w"}, InvalidDataError, "not VARCHAR"),
    ({"features": ["w"]}, InvalidParameterError, "no features"),
]


@pytest.mark.parametrize("kwargs, error, message", BAD_TEXT_SEARCHES,
                         ids=[m for _, _, m in BAD_TEXT_SEARCHES])
def test_bad_text_searches_raise_and_leave_the_model_unchanged(kwargs, error, message):
    con = duckdb.connect()
    con.register("documents", _corpus())
    model = sqlnb.NaiveBayes("m", con=con, family="multinomial", alpha=0.5).fit(
        "documents", "y", text="body")
    before = con.sql("SELECT * FROM m_feature_stats ORDER BY ALL").fetchall()
    tables = con.sql("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()
    arguments = {"text": "body", "cv": "fold", "param_grid": {"alpha": [1.0]}, **kwargs}
    with pytest.raises(error, match=message):
        model.search("documents", "y", **arguments)
    assert con.sql("SELECT * FROM m_feature_stats ORDER BY ALL").fetchall() == before
    assert con.sql("SELECT table_name FROM information_schema.tables ORDER BY 1"
                   ).fetchall() == tables
    assert model.family.params["alpha"] == 0.5


def _per_group_reference(family: str, frame: pd.DataFrame, options: dict, alpha: float,
                         weighted: bool) -> tuple[float, float]:
    """The mean held-out accuracy and log-loss over folds 0-2 of a per-group text model
    fitted on each training set: CountVectorizer + <family>NB per shop on the shop's
    training documents, a pooled one on all of them for a held-out document whose shop has
    no training document or is NULL (a class a shop never saw: probability 0)."""
    classes = sorted(set(frame["y"]))
    accuracies, losses = [], []
    for fold in range(3):
        train, test = frame[frame["fold"] != fold], frame[frame["fold"] == fold]

        def proba(rows: pd.DataFrame, scored: pd.DataFrame) -> np.ndarray:
            vectorizer = CountVectorizer(**options)
            nb = ESTIMATORS[family](alpha=alpha)
            nb.fit(vectorizer.fit_transform(rows["body"]), rows["y"],
                   sample_weight=rows["w"].to_numpy() if weighted else None)
            out = np.zeros((len(scored), len(classes)))
            out[:, [classes.index(c) for c in nb.classes_]] = nb.predict_proba(
                vectorizer.transform(scored["body"]))
            return out

        result = proba(train, test)
        for shop in set(train["shop"].dropna()):
            rows = (test["shop"] == shop).to_numpy()
            if rows.any():
                result[rows] = proba(train[train["shop"] == shop], test[rows])
        weight = test["w"].to_numpy() if weighted else None
        accuracies.append(np.average(np.array(classes)[result.argmax(axis=1)] == test["y"],
                                     weights=weight))
        losses.append(get_scorer("neg_log_loss")._score_func(
            test["y"], result, labels=classes, sample_weight=weight))
    return float(np.mean(accuracies)), -float(np.mean(losses))


@pytest.mark.parametrize("family, options, weighted", [
    ("multinomial", {}, False),
    ("complement", {"ngram_range": (1, 2)}, True),
    ("bernoulli", {"min_df": 2}, False),
])
def test_a_per_group_text_search_scores_each_fold_as_its_per_group_fit(family, options,
                                                                       weighted):
    """cv_results_ of a search with group_by: every candidate's mean held-out accuracy and
    log-loss equal those of scikit-learn's per-shop pipelines fitted per fold (a shop
    whose documents all lie in the held-out fold, and NULL shops, scored by the pooled
    one); the refit is the per-group text fit of the best candidate."""
    frame = _corpus(seed=4, n=90)
    shop = np.array(["north", "south", "east"], dtype=object)[np.arange(len(frame)) % 5 % 3]
    shop[np.arange(len(frame)) % 11 == 0] = None
    shop[(frame["fold"] == 2).to_numpy() & (np.arange(len(frame)) % 4 == 0)] = "only_two"
    frame = frame.assign(shop=shop)
    con = duckdb.connect()
    con.register("documents", frame)
    grid = {"alpha": [0.5, 2.0]}
    model = sqlnb.NaiveBayes("m", con=con, family=family)
    result = model.search("documents", "y", text="body", group_by="shop", cv="fold",
                          param_grid=grid, scoring=["accuracy", "neg_log_loss"],
                          refit="accuracy", weight="w" if weighted else None, **options)
    got = result.cv_results_.df()
    want = [_per_group_reference(family, frame, options, alpha, weighted)
            for alpha in grid["alpha"]]
    np.testing.assert_allclose(got["mean_test_accuracy"], [a for a, _ in want],
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got["mean_test_neg_log_loss"], [loss for _, loss in want],
                               rtol=1e-9, atol=1e-12)
    best = int(np.argmax([a for a, _ in want]))
    assert result.best_params_ == {"alpha": grid["alpha"][best]}
    refitted = sqlnb.NaiveBayes("r", con=con, family=family, alpha=grid["alpha"][best]).fit(
        "documents", "y", text="body", group_by="shop", weight="w" if weighted else None,
        **options)
    assert model.context.spec.groups == (("shop", "VARCHAR"),)
    columns = [f"proba_{c}" for c in model.classes_]
    np.testing.assert_allclose(model.predict_proba("documents").df()[columns],
                               refitted.predict_proba("documents").df()[columns],
                               rtol=0, atol=1e-12)


def test_a_column_family_cannot_search_text():
    with pytest.raises(InvalidParameterError, match="needs a count family"):
        sqlnb.NaiveBayes("m", con=duckdb.connect()).search(
            _corpus(), "y", text="body", cv="fold", param_grid={"var_smoothing": [1.0]})


def test_documents_with_a_null_fold_only_train_as_predefined_splits_minus_one():
    frame = _corpus(seed=9)
    frame["fold"] = frame["fold"].astype("Int64")
    frame.loc[frame.index % 7 == 0, "fold"] = pd.NA
    grid = {"alpha": [0.1, 1.0], "min_df": [1, 2]}
    model = sqlnb.NaiveBayes("m", con=duckdb.connect(), family="multinomial")
    result = model.search(frame, "y", text="body", param_grid=grid, cv="fold",
                          scoring=SCORERS, refit=False)
    _assert_scores_equal(result, _oracle("multinomial", frame.assign(
        fold=frame["fold"].fillna(-1).astype(int)), grid, False, refit=False))


def test_a_relation_with_the_scratch_models_name_is_never_dropped():
    con = duckdb.connect()
    con.execute('CREATE TABLE "__sqlnb_search_m_vocabulary" AS SELECT 1 AS keep')
    with pytest.raises(NameConflictError):
        sqlnb.NaiveBayes("m", con=con, family="multinomial").search(
            _corpus(), "y", text="body", cv="fold", param_grid={"alpha": [1.0]})
    assert con.sql('SELECT * FROM "__sqlnb_search_m_vocabulary"').fetchall() == [(1,)]
