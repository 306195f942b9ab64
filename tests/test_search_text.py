"""Issue 13: searches over a text column.

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
from sqlnb.errors import InvalidDataError, InvalidParameterError, UnsupportedError
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
