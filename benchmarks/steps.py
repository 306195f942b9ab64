"""The measured steps. Each ``prepare_*`` function runs in a fresh child process: it does
the untimed setup and returns the step to time (see ``common.measure``).

sqlnb steps read Parquet files in place and write Parquet; scikit-learn steps read the
same files with PyArrow into NumPy arrays, as a user of scikit-learn would.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from common import connect, parquet_columns, render  # benchmarks/ is on sys.path (see run.py)

import sqlnb
from sqlnb.dialect import DUCKDB

Step = Callable[[], Any]
TARGET = "y"
MODEL = "bench"


def feature_columns(path: Path) -> list[str]:
    return [c for c in parquet_columns(path) if c != TARGET]


# ---------------------------------------------------------------------- helpers
def read_arrays(path: Path, features: list[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Parquet -> NumPy, the way a scikit-learn user loads a file: ``X`` and ``y``."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    features = features or [c for c in table.column_names if c != TARGET]
    X = np.column_stack([table[c].to_numpy() for c in features])
    return X, table[TARGET].to_numpy()


def sklearn_estimator(family: str):
    from sklearn import naive_bayes

    names = {"gaussian": "GaussianNB", "multinomial": "MultinomialNB",
             "categorical": "CategoricalNB"}
    return getattr(naive_bayes, names[family])()


def fit_model(db: Path, source: Path | list[Path], family: str, **fit_options: Any) -> None:
    """Fit and store a model in the database file ``db`` (setup for predict steps)."""
    db.parent.mkdir(parents=True, exist_ok=True)
    for stale in (db, db.with_name(db.name + ".wal")):
        stale.unlink(missing_ok=True)
    con = connect(str(db))
    try:
        sqlnb.NaiveBayes(MODEL, con=con, family=family).fit(str(source), TARGET, **fit_options)
    finally:
        con.close()


# ---------------------------------------------------------------------- the floor
def prepare_floor(path: Path) -> Step:
    """One DuckDB query summing every feature column of the file: the fastest full pass."""
    con = connect()
    sql = render("floor.sql", path=str(path), columns=feature_columns(path))
    return lambda: con.execute(sql).fetchall()


# ---------------------------------------------------------------------- sqlnb
def prepare_sqlnb_fit(path: Path, family: str) -> Step:
    con = connect()
    return lambda: sqlnb.NaiveBayes(MODEL, con=con, family=family).fit(str(path), TARGET)


def prepare_sqlnb_fit_warm(path: Path, family: str) -> Step:
    """The second fit in a process: templates compiled and DuckDB warmed by a first one."""
    con = connect()
    sqlnb.NaiveBayes(MODEL, con=con, family=family).fit(str(path), TARGET)
    return lambda: sqlnb.NaiveBayes(MODEL, con=con, family=family).fit(str(path), TARGET)


def prepare_sqlnb_predict(db: Path, path: Path, out: Path) -> Step:
    """Parquet -> Parquet: the predictions of every row of ``path`` written to ``out``."""
    con = connect(str(db), read_only=True)
    model = sqlnb.load(con, MODEL)

    def step() -> None:
        model.predict(str(path)).project(DUCKDB.ident("prediction")).write_parquet(str(out))

    return step


def prepare_sqlnb_partial_fit(paths: list[Path], family: str) -> Step:
    con = connect()

    def step() -> None:
        model = sqlnb.NaiveBayes(MODEL, con=con, family=family)
        for path in paths:
            model.partial_fit(str(path), TARGET)

    return step


def prepare_sqlnb_text_fit(path: Path) -> Step:
    con = connect()
    return lambda: sqlnb.NaiveBayes(MODEL, con=con, family="multinomial").fit(
        str(path), TARGET, text="body")


# ---------------------------------------------------------------------- scikit-learn
def prepare_sklearn_fit(path: Path, family: str) -> Step:
    """Read Parquet -> NumPy -> fit, all timed (scikit-learn's end-to-end fit)."""
    def step() -> None:
        X, y = read_arrays(path)
        sklearn_estimator(family).fit(X, y)

    return step


def prepare_sklearn_fit_in_memory(path: Path, family: str) -> Step:
    """fit alone, on arrays already in memory."""
    X, y = read_arrays(path)
    return lambda: sklearn_estimator(family).fit(X, y)


def prepare_sklearn_predict(path: Path, family: str) -> Step:
    """predict alone, on arrays already in memory (fitted beforehand, untimed)."""
    X, y = read_arrays(path)
    estimator = sklearn_estimator(family).fit(X, y)
    return lambda: estimator.predict(X)


def _encoded(path: Path):
    import pyarrow.parquet as pq
    from sklearn.preprocessing import OrdinalEncoder

    table = pq.read_table(path)
    features = [c for c in table.column_names if c != TARGET]
    encoder = OrdinalEncoder()
    X = encoder.fit_transform(table.select(features).to_pandas())
    return X, table[TARGET].to_numpy()


def prepare_sklearn_categorical_fit(path: Path) -> Step:
    """Read Parquet -> OrdinalEncoder -> CategoricalNB.fit, all timed."""
    def step() -> None:
        X, y = _encoded(path)
        sklearn_estimator("categorical").fit(X, y)

    return step


def prepare_sklearn_categorical_predict(path: Path) -> Step:
    """CategoricalNB.predict alone, on encoded arrays already in memory."""
    X, y = _encoded(path)
    estimator = sklearn_estimator("categorical").fit(X, y)
    return lambda: estimator.predict(X)


def prepare_sklearn_partial_fit(paths: list[Path], family: str, classes: int) -> Step:
    """For each batch file: read Parquet -> NumPy -> partial_fit."""
    def step() -> None:
        estimator = sklearn_estimator(family)
        for path in paths:
            X, y = read_arrays(path)
            estimator.partial_fit(X, y, classes=np.arange(classes))

    return step


def _documents(path: Path) -> tuple[list[str], np.ndarray]:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    return table["body"].to_pylist(), table[TARGET].to_numpy()


def prepare_sklearn_text_fit(path: Path) -> Step:
    """Read Parquet -> CountVectorizer -> MultinomialNB.fit, all timed."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    def step() -> None:
        documents, y = _documents(path)
        MultinomialNB().fit(CountVectorizer().fit_transform(documents), y)

    return step


def prepare_sklearn_text_predict(path: Path) -> Step:
    """Raw text -> predictions: read, vectorize and predict timed; the fit is not."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    documents, y = _documents(path)
    vectorizer = CountVectorizer()
    estimator = MultinomialNB().fit(vectorizer.fit_transform(documents), y)

    def step() -> None:
        new_documents, _ = _documents(path)
        estimator.predict(vectorizer.transform(new_documents))

    return step


# ---------------------------------------------------------------------- latency
def _one_row(path: Path):
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    features = [c for c in table.column_names if c != TARGET]
    return table, features


def prepare_latency_sklearn(path: Path) -> Step:
    X, y = read_arrays(path)
    estimator = sklearn_estimator("gaussian").fit(X, y)
    row = X[:1]
    return lambda: estimator.predict(row)


def prepare_latency_facade(path: Path) -> Step:
    """scikit-learn-compatible facade: ``sqlnb.sklearn.GaussianNB().predict(one_row)``."""
    from sqlnb.sklearn import GaussianNB

    X, y = read_arrays(path)
    estimator = GaussianNB().fit(X, y)
    row = X[:1]
    return lambda: estimator.predict(row)


def prepare_latency_native(path: Path) -> Step:
    """SQL-native facade: ``NaiveBayes.predict(one_row_arrow_table).fetchall()``."""
    table, features = _one_row(path)
    con = connect()
    model = sqlnb.NaiveBayes(MODEL, con=con).fit(table, TARGET)
    row = table.select(features).slice(0, 1)
    return lambda: model.predict(row).fetchall()


def prepare_latency_macro(path: Path) -> Step:
    """The SQL macro ``bench_predict(t)`` over a one-row table (needs issue 4's macros)."""
    table, features = _one_row(path)
    con = connect()
    model = sqlnb.NaiveBayes(MODEL, con=con).fit(table, TARGET)
    model.create_macros()
    con.from_arrow(table.select(features).slice(0, 1)).create("one_row")
    sql = render("macro_latency.sql", macro=f"{MODEL}_predict", table="one_row")
    return lambda: con.execute(sql).fetchall()
