"""Models used from several threads, each on its own cursor of one connection: readers
predict while a writer refits. No raw DuckDB error reaches a caller, every answer is that
of one fitted version (scikit-learn's GaussianNB on one of the two datasets), and a
finalizer never calls a connection from a thread other than the one using it."""

from __future__ import annotations

import gc
import threading
import traceback
import warnings

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from sklearn.naive_bayes import GaussianNB

import sqlnb
from sqlnb.engines.planned import cleanup_for

QUERY = pa.table({"x0": [0.1, 1.0, 2.5, -1.0], "x1": [0.3, -0.2, 3.0, 0.5]})


def versions() -> tuple[list[pa.Table], list[np.ndarray]]:
    """Two training sets (string labels) and scikit-learn's probabilities for QUERY."""
    rng = np.random.default_rng(7)
    tables, oracles = [], []
    for shift in (0.0, 1.5):
        X = rng.normal(size=(40, 2)) + shift
        y = np.array(["a", "b"] * 20)
        X[y == "b"] += 2.0
        tables.append(pa.table({"x0": X[:, 0], "x1": X[:, 1], "y": y}))
        Q = np.column_stack([QUERY["x0"].to_numpy(), QUERY["x1"].to_numpy()])
        oracles.append(GaussianNB().fit(X, y).predict_proba(Q))
    return tables, oracles


def which_version(model: sqlnb.NaiveBayes, oracles: list[np.ndarray], source=QUERY) -> int:
    """The index of the version whose probabilities ``model`` gives for QUERY (one must);
    ``source`` is QUERY in another form (a pandas DataFrame scores by another path)."""
    got = model.predict_proba(source).to_arrow_table()
    proba = np.column_stack([got["proba_a"].to_numpy(), got["proba_b"].to_numpy()])
    matches = [i for i, expected in enumerate(oracles)
               if np.allclose(proba, expected, rtol=0, atol=1e-9)]
    assert len(matches) == 1, proba
    return matches[0]


def run_in_threads(*jobs) -> list[str]:
    """Run each job in a thread of its own; the tracebacks of those that raised."""
    failures: list[str] = []

    def guarded(job):
        try:
            job()
        except BaseException:  # noqa: BLE001 (reported by the test)
            failures.append(traceback.format_exc())

    threads = [threading.Thread(target=guarded, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not any(thread.is_alive() for thread in threads)
    return failures


def test_readers_and_a_writer_on_cursors_of_one_connection():
    tables, oracles = versions()
    con = duckdb.connect()
    sqlnb.NaiveBayes("m", con=con).fit(tables[0], "y")
    seen: list[int] = []
    cursors = [con.cursor() for _ in range(3)]

    def writer():
        model = sqlnb.NaiveBayes("m", con=cursors[0])
        for i in range(12):
            model.fit(tables[(i + 1) % 2], "y")
            gc.collect()  # collects the readers' garbage here, in the writer's thread

    def reader(cursor):
        def read():
            kept = sqlnb.load(cursor, "m")
            for i in range(20):
                # a model object per call as well: its planned statements become garbage
                model = kept if i % 2 else sqlnb.load(cursor, "m")
                seen.append(which_version(model, oracles))
                if i % 4 == 0:
                    gc.collect()
        return read

    with warnings.catch_warnings(record=True) as caught:
        failures = run_in_threads(writer, reader(cursors[1]), reader(cursors[2]))
    assert failures == []
    assert len(seen) == 40 and set(seen) <= {0, 1}
    assert [str(w.message) for w in caught] == []  # no internal warning reached the caller
    # what finalizers queued is freed at the next call on each cursor: nothing piles up
    for cursor in cursors:
        sqlnb.list_models(cursor)
        assert len(cleanup_for(cursor).pending) == 0
        left = cursor.execute("SELECT count(*) FROM duckdb_prepared_statements()").fetchall()
        assert left[0][0] <= 32


def scratch(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """sqlnb's prepared statements and helper views on the connection."""
    prepared = con.execute("SELECT count(*) FROM duckdb_prepared_statements()").fetchall()
    views = con.execute("SELECT count(*) FROM duckdb_views() "
                        "WHERE starts_with(view_name, '__sqlnb')").fetchall()
    return prepared[0][0], views[0][0]


def test_a_finalizer_run_in_another_thread_leaves_the_connection_to_its_thread():
    """The garbage collector runs a model's finalizers in whichever thread it runs: there
    they only queue the cleanup (the connection may be busy with its own thread's call),
    and the connection's thread runs it at its next call."""
    tables, _ = versions()
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con)
    model.partial_fit(tables[0], "y")  # planned statements and the write slot's view
    model.predict_proba(QUERY).fetchall()  # prepared scoring statements
    before = scratch(con)
    assert before[0] > 0 and before[1] > 0
    holder = [model]
    del model

    def drop_elsewhere():
        holder.clear()
        gc.collect()

    assert run_in_threads(drop_elsewhere) == []
    assert scratch(con) == before  # not a statement ran on the connection from there
    assert len(cleanup_for(con).pending) > 0
    sqlnb.list_models(con)  # the connection's thread makes its next call
    assert scratch(con) == (0, 0)
    assert len(cleanup_for(con).pending) == 0


def test_a_finalizer_in_the_connections_own_thread_frees_at_once():
    tables, _ = versions()
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con)
    model.partial_fit(tables[0], "y")
    model.predict_proba(QUERY).fetchall()
    del model
    gc.collect()
    assert scratch(con) == (0, 0)
    assert len(cleanup_for(con).pending) == 0


def test_scoring_leaves_the_warning_filters_alone(monkeypatch):
    """warnings.catch_warnings swaps the process's filters (not thread-safe): scoring must
    not use it; DuckDB's note on the copy of a small result stays silent all the same."""
    tables, oracles = versions()
    model = sqlnb.NaiveBayes("m", con=duckdb.connect()).fit(tables[0], "y")

    def swapped(*args, **kwargs):
        raise AssertionError("the warning filters were swapped during a call")

    with warnings.catch_warnings(record=True) as caught, monkeypatch.context() as patched:
        patched.setattr(warnings, "catch_warnings", swapped)
        assert which_version(model, oracles) == 0
        assert model.predict(QUERY).fetchall()[0][-1] == "a"
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("action", ["error", "always", "ignore"])
def test_scoring_works_under_the_callers_warning_filters(action):
    """Whatever filter the caller puts first (pytest.warns puts "always"), the note stays
    internal, and the caller's own warnings are treated as the caller asked."""
    tables, oracles = versions()
    model = sqlnb.NaiveBayes("m", con=duckdb.connect()).fit(tables[0], "y")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(action)
        assert which_version(model, oracles) == 0
        assert [row[-1] for row in model.predict(QUERY).fetchall()] == ["a", "a", "b", "a"]
        if action != "error":
            warnings.warn("the caller's own", UserWarning, stacklevel=1)
    expected = {"error": [], "always": ["the caller's own"], "ignore": []}[action]
    assert [str(w.message) for w in caught] == expected
