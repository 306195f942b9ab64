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
import sqlnb.scoring
from sqlnb.engines.dialects import DUCKDB

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
    """The SQL macro ``bench_predict(t)`` over a one-row table."""
    table, features = _one_row(path)
    con = connect()
    model = sqlnb.NaiveBayes(MODEL, con=con).fit(table, TARGET)
    model.create_macros()
    con.from_arrow(table.select(features).slice(0, 1)).create("one_row")
    sql = render("macro_latency.sql", macro=f"{MODEL}_predict", table="one_row")
    return lambda: con.execute(sql).fetchall()


# ---------------------------------------------------------------------- digits
DIGITS_FEATURES = [f"pixel_{i}" for i in range(64)]


def digits_table():
    """scikit-learn's bundled ``load_digits`` (1,797 x 64, 10 classes) as an Arrow table."""
    import pyarrow as pa
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    columns = {name: X[:, i].astype(np.float64) for i, name in enumerate(DIGITS_FEATURES)}
    return pa.table({**columns, TARGET: y.astype(np.int64)})


def _fetch(relation: Any, fetch: str) -> Any:
    """One row comes back as Python tuples, many as an Arrow table: the same for every
    step. (Every row is read: DuckDB 2.0's ``relation.arrow()`` returns a record batch
    reader, which would leave rows unread.)"""
    return relation.fetchall() if fetch == "rows" else relation.to_arrow_table()


def prepare_digits_read(rows: int, fetch: str) -> Step:
    """The floor: DuckDB ``SELECT *`` of the first ``rows`` rows, an Arrow table."""
    con = connect()
    con.register("digits_input", digits_table().select(DIGITS_FEATURES).slice(0, rows))
    sql = render("select_all.sql", table="digits_input")
    return lambda: _fetch(con.sql(sql), fetch)


def prepare_digits_read_table(rows: int) -> Step:
    """The floor of the macro: ``SELECT *`` of the same rows stored as a DuckDB table."""
    con = connect()
    con.from_arrow(digits_table().select(DIGITS_FEATURES).slice(0, rows)).create("digits_input")
    sql = render("select_all.sql", table="digits_input")
    return lambda: con.execute(sql).fetchall()


def prepare_digits_native(rows: int, fetch: str) -> Step:
    """``NaiveBayes.predict(arrow_table)`` on the first ``rows`` digits (model fitted untimed)."""
    table = digits_table()
    con = connect()
    model = sqlnb.NaiveBayes(MODEL, con=con).fit(table, TARGET)
    batch = table.select(DIGITS_FEATURES).slice(0, rows)
    return lambda: _fetch(model.predict(batch), fetch)


def prepare_digits_facade(rows: int) -> Step:
    """``sqlnb.sklearn.GaussianNB().predict(X[:rows])`` on NumPy input."""
    from sklearn.datasets import load_digits

    from sqlnb.sklearn import GaussianNB

    X, y = load_digits(return_X_y=True)
    estimator = GaussianNB().fit(X, y)
    batch = X[:rows]
    return lambda: estimator.predict(batch)


def prepare_digits_sklearn(rows: int) -> Step:
    """scikit-learn's ``GaussianNB().predict(X[:rows])``."""
    from sklearn.datasets import load_digits
    from sklearn.naive_bayes import GaussianNB

    X, y = load_digits(return_X_y=True)
    estimator = GaussianNB().fit(X, y)
    batch = X[:rows]
    return lambda: estimator.predict(batch)


def prepare_digits_macro(rows: int) -> Step:
    """The SQL macro ``bench_predict(t)`` over the rows stored as a DuckDB table."""
    table = digits_table()
    con = connect()
    sqlnb.NaiveBayes(MODEL, con=con).fit(table, TARGET)  # a fit creates the macros
    con.from_arrow(table.select(DIGITS_FEATURES).slice(0, rows)).create("digits_input")
    sql = render("macro_latency.sql", macro=f"{MODEL}_predict", table="digits_input")
    return lambda: con.execute(sql).fetchall()


# ---------------------------------------------------------------------- width sweep
def prepare_read_parquet(path: Path) -> Step:
    """Reading every row and column of the file into Arrow: the floor of scoring it."""
    con = connect()
    sql = render("select_all.sql", path=str(path))
    return lambda: con.sql(sql).to_arrow_table()


def prepare_width_predict(db: Path, path: Path) -> Step:
    """``predict`` of every row of the file, the input's columns and the prediction to Arrow."""
    con = connect(str(db), read_only=True)
    model = sqlnb.load(con, MODEL)
    return lambda: model.predict(str(path)).to_arrow_table()


def prepare_width_predict_empty(db: Path, path: Path) -> Step:
    """``predict`` of a 0-row input with the file's columns: everything but the rows."""
    import pyarrow.parquet as pq

    con = connect(str(db), read_only=True)
    model = sqlnb.load(con, MODEL)
    empty = pq.read_table(path).slice(0, 0)
    return lambda: model.predict(empty).to_arrow_table()


def prepare_width_explain(db: Path, path: Path) -> Step:
    """DuckDB's ``EXPLAIN`` of the statement ``predict`` runs: parse, bind and plan alone."""
    con = connect(str(db), read_only=True)
    model = sqlnb.load(con, MODEL)
    query, parameters = sqlnb.compiler.statement(model, str(path))
    sql = render("explain.sql", query=query)
    return lambda: con.execute(sql, parameters).fetchall()


def prepare_width_explain_floor(path: Path) -> Step:
    """DuckDB's ``EXPLAIN`` of ``SELECT *`` of the file: what planning any statement that
    returns every column of the input costs, the floor of the predict statement's."""
    con = connect()
    sql = render("explain.sql", query=render("select_all.sql", path=str(path)).strip().rstrip(";"))
    return lambda: con.execute(sql).fetchall()


def scoring_sql_size(db: Path) -> int:
    """Characters of the model's standalone scoring statement (``to_sql``)."""
    con = connect(str(db), read_only=True)
    try:
        return len(sqlnb.load(con, MODEL).to_sql())
    finally:
        con.close()


# ---------------------------------------------------------------------- small batches
def _batches(path: Path, batches: int, rows: int) -> list[Any]:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    return [table.slice(i * rows, rows) for i in range(batches)]


def prepare_batches_sqlnb(path: Path, batches: int, rows: int) -> Step:
    """A loop of ``partial_fit`` calls, one per in-memory Arrow batch."""
    tables = _batches(path, batches, rows)
    con = connect()

    def step() -> None:
        model = sqlnb.NaiveBayes(MODEL, con=con)
        for table in tables:
            model.partial_fit(table, TARGET)

    return step


def prepare_batches_insert(path: Path, batches: int, rows: int) -> Step:
    """A loop of DuckDB INSERTs of the same Arrow batches into a table."""
    tables = _batches(path, batches, rows)
    con = connect()
    con.register("batch", tables[0])
    con.execute(render("empty_like.sql", table="rows", source="batch"))
    sql = render("insert_batch.sql", table="rows", source="batch")

    def step() -> None:
        for table in tables:
            con.register("batch", table)
            con.execute(sql)

    return step


def prepare_batches_floor(path: Path, batches: int, rows: int) -> Step:
    """The floor of the ``partial_fit`` loop: per batch, one planned statement that adds
    its per-class counts, sums and sums of squares into a statistics table, over an input
    slot (``sqlnb.engines.planned.WriteSlot``), in a transaction of its own."""
    from sqlnb.engines.planned import WriteSlot

    tables = _batches(path, batches, rows)
    con = connect()
    features = [name for name in tables[0].column_names if name != TARGET]
    slot = WriteSlot()
    slot.table = tables[0]
    con.register("batch", slot)
    class_type = dict(con.execute("DESCRIBE batch").fetchall()[i][:2]
                      for i in range(len(tables[0].column_names)))[TARGET]
    con.execute(render("moments_table.sql", table="moments", class_type=class_type))
    con.execute("PREPARE floor AS " + render("moments_floor.sql", table="moments",
                                             target=TARGET, columns=features, source="batch"))

    def step() -> None:
        for table in tables:
            slot.table = table
            con.begin()
            con.execute("EXECUTE floor")
            con.commit()
        slot.table = None

    return step


def prepare_batches_sklearn(path: Path, batches: int, rows: int) -> Step:
    """scikit-learn's ``GaussianNB.partial_fit`` loop over the same batches as NumPy arrays."""
    from sklearn.naive_bayes import GaussianNB

    X, y = read_arrays(path)
    pieces = [(X[i * rows:(i + 1) * rows], y[i * rows:(i + 1) * rows]) for i in range(batches)]
    classes = np.unique(y)

    def step() -> None:
        estimator = GaussianNB()
        for X_batch, y_batch in pieces:
            estimator.partial_fit(X_batch, y_batch, classes=classes)

    return step


# ---------------------------------------------------------------------- short text
def prepare_short_text_sqlnb(train: Path, test: Path, out: Path) -> Step:
    """Raw text end to end: read, tokenise and fit; read, score and write the predictions."""
    con = connect()

    def step() -> None:
        model = sqlnb.NaiveBayes(MODEL, con=con, family="multinomial")
        model.fit(str(train), TARGET, text="body")
        model.predict(str(test)).project(DUCKDB.ident("prediction")).write_parquet(str(out))

    return step


def prepare_short_text_sklearn(train: Path, test: Path, out: Path) -> Step:
    """The same with PyArrow, ``CountVectorizer`` and ``MultinomialNB``."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    def step() -> None:
        documents, y = _documents(train)
        vectorizer = CountVectorizer()
        estimator = MultinomialNB().fit(vectorizer.fit_transform(documents), y)
        new_documents, _ = _documents(test)
        predictions = estimator.predict(vectorizer.transform(new_documents))
        pq.write_table(pa.table({"prediction": predictions}), out)

    return step
