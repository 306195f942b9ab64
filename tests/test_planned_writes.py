"""An update's statements planned once (``sqlnb.engines.planned``): the same answers as ever.

``partial_fit`` and ``forget`` run their batch scan, probe, upsert and checks as prepared
statements keyed by their text, over a write slot for small Arrow batches. The oracle is
scikit-learn's ``fit`` on all the batches (Gaussian: what partial_fit equals, see
docs/incremental.md) or its ``partial_fit`` loop (counts).
"""

from __future__ import annotations

import gc

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from sklearn.naive_bayes import GaussianNB, MultinomialNB

import sqlnb
from sqlnb.errors import InvalidDataError

FEATURES = ["a", "b", "c"]


def arrays(seed: int, n: int = 60, labels=(0, 1, 2)) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.choice(labels, n)
    X = rng.normal(3.0, 1.5, (n, 3)) + np.asarray(y, dtype=float)[:, None]
    return X, y


def arrow(X: np.ndarray, y: np.ndarray, dtype: pa.DataType | None = None) -> pa.Table:
    columns = {name: pa.array(X[:, i], dtype or pa.float64()) for i, name in enumerate(FEATURES)}
    return pa.table({**columns, "y": pa.array(y, pa.int64())})


def sklearn_fit(*batches: tuple[np.ndarray, np.ndarray]) -> GaussianNB:
    """scikit-learn's fit on the union of the batches: what partial_fit equals (its
    epsilon comes from all the data seen; see docs/incremental.md)."""
    X = np.vstack([X for X, _ in batches])
    y = np.concatenate([y for _, y in batches])
    return GaussianNB(var_smoothing=1e-9).fit(X, y)


def assert_same_fit(model: sqlnb.NaiveBayes, oracle: GaussianNB) -> None:
    ours = model.to_sklearn()
    np.testing.assert_array_equal(ours.classes_, oracle.classes_)
    np.testing.assert_array_equal(ours.class_count_, oracle.class_count_)
    np.testing.assert_allclose(ours.theta_, oracle.theta_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.var_, oracle.var_, rtol=1e-9, atol=1e-12)


def prepared(con: duckdb.DuckDBPyConnection) -> int:
    return con.execute("SELECT count(*) FROM duckdb_prepared_statements()").fetchall()[0][0]


def test_a_loop_of_arrow_batches_equals_scikit_learns_fit_on_all_of_them():
    con = duckdb.connect()
    batches = [arrays(seed) for seed in range(6)]
    model = sqlnb.NaiveBayes("m", con=con)
    for X, y in batches:
        model.partial_fit(arrow(X, y), "y")
    assert prepared(con) > 0  # the update's statements were planned, and reused
    assert_same_fit(model, sklearn_fit(*batches))


def test_a_forget_after_planned_updates_equals_the_loop_without_that_batch():
    con = duckdb.connect()
    batches = [arrays(seed) for seed in range(4)]
    model = sqlnb.NaiveBayes("m", con=con)
    for X, y in batches:
        model.partial_fit(arrow(X, y), "y")
    model.forget(arrow(*batches[1]), "y")
    assert_same_fit(model, sklearn_fit(batches[0], batches[2], batches[3]))


def test_a_later_batch_with_a_new_class_adds_it_through_the_planned_upsert():
    con = duckdb.connect()
    first, second = arrays(1), arrays(2)
    third = arrays(3, labels=(0, 1, 2, 7))
    model = sqlnb.NaiveBayes("m", con=con)
    for X, y in (first, second, third):
        model.partial_fit(arrow(X, y), "y")
    assert model.classes_ == [0, 1, 2, 7]
    assert_same_fit(model, sklearn_fit(first, second, third))


def test_batches_of_another_column_type_are_scanned_by_their_own_plan():
    # the same values as BIGINT or as DOUBLE columns: the same statistics
    con = duckdb.connect()
    X1, y1 = arrays(1)
    X2, y2 = np.round(arrays(2)[0]), arrays(2)[1]  # whole numbers
    X3, y3 = arrays(3)
    mixed = sqlnb.NaiveBayes("mixed", con=con)
    floats = sqlnb.NaiveBayes("floats", con=con)
    for model, dtype in ((mixed, pa.int64()), (floats, pa.float64())):
        model.partial_fit(arrow(X1, y1), "y")
        model.partial_fit(arrow(X2, y2, dtype), "y")
        model.partial_fit(arrow(X3, y3), "y")
    ours, theirs = mixed.to_sklearn(), floats.to_sklearn()
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-12)
    assert ours.class_count_.tolist() == [np.sum(np.concatenate([y1, y2, y3]) == k)
                                          for k in (0, 1, 2)]


def test_another_connections_update_between_two_partial_fits_is_kept(tmp_path):
    path = str(tmp_path / "models.duckdb")
    batches = [arrays(seed) for seed in range(3)]
    with duckdb.connect(path) as mine, duckdb.connect(path) as theirs:
        model = sqlnb.NaiveBayes("m", con=mine)
        model.partial_fit(arrow(*batches[0]), "y")
        sqlnb.load(theirs, "m").partial_fit(arrow(*batches[1]), "y")
        model.partial_fit(arrow(*batches[2]), "y")
        assert_same_fit(model, sklearn_fit(*batches))


def test_another_connections_refit_between_two_partial_fits_is_continued(tmp_path):
    # the other writer replaces the model (new tables, far-away data): the planned
    # statements and the kept shifts of this object must follow the model as it is now
    path = str(tmp_path / "models.duckdb")
    old = arrays(1)
    refit = (arrays(2)[0] + 1e6, arrays(2)[1])
    later = (arrays(3)[0] + 1e6, arrays(3)[1])
    with duckdb.connect(path) as mine, duckdb.connect(path) as theirs:
        model = sqlnb.NaiveBayes("m", con=mine)
        model.partial_fit(arrow(*old), "y")
        model.partial_fit(arrow(*arrays(4)), "y")
        sqlnb.NaiveBayes("m", con=theirs).fit(arrow(*refit), "y")
        model.partial_fit(arrow(*later), "y")
        assert_same_fit(model, sklearn_fit(refit, later))


def test_a_refused_update_after_planned_ones_changes_nothing_and_the_next_one_works():
    con = duckdb.connect()
    first, second, third = arrays(1), arrays(2), arrays(3)
    model = sqlnb.NaiveBayes("m", con=con)
    model.partial_fit(arrow(*first), "y")
    model.partial_fit(arrow(*second), "y")
    before = con.execute("SELECT * FROM m_feature_stats ORDER BY ALL").fetchall()
    with pytest.raises(InvalidDataError, match="cannot forget more"):
        model.forget(arrow(np.vstack([first[0], first[0]]), np.concatenate([first[1]] * 2)), "y")
    assert con.execute("SELECT * FROM m_feature_stats ORDER BY ALL").fetchall() == before
    model.partial_fit(arrow(*third), "y")
    assert_same_fit(model, sklearn_fit(first, second, third))


def test_a_count_model_updated_from_a_table_name_equals_scikit_learns_partial_fit_loop():
    con = duckdb.connect()
    rng = np.random.default_rng(0)
    model = sqlnb.NaiveBayes("m", con=con, family="multinomial")
    oracle = MultinomialNB()
    for _ in range(3):
        X, y = rng.integers(0, 6, (40, 3)), rng.choice([0, 1, 2], 40)
        con.register("batch_rows", arrow(X.astype(float), y))
        con.execute("CREATE OR REPLACE TABLE batch AS FROM batch_rows")
        model.partial_fit("batch", "y")  # the same text each call: one plan
        oracle.partial_fit(X, y, classes=[0, 1, 2])
    np.testing.assert_allclose(model.to_sklearn().feature_log_prob_, oracle.feature_log_prob_,
                               rtol=1e-9)


def scratch(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """sqlnb's helper relations on the connection: (kind, rows they hold)."""
    views = con.execute("SELECT view_name FROM duckdb_views() "
                        "WHERE starts_with(view_name, '__sqlnb')").fetchall()
    tables = con.execute("SELECT table_name FROM duckdb_tables() "
                         "WHERE starts_with(table_name, '__sqlnb')").fetchall()
    return [("view", None) for _ in views] + [
        ("table", con.execute(f'SELECT count(*) FROM "{name}"').fetchall()[0][0])
        for (name,) in tables]


def test_the_planned_statements_the_write_slot_and_the_batch_table_go_with_the_model_object():
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con)
    for seed in range(3):
        model.partial_fit(arrow(*arrays(seed)), "y")
    # between calls: the slot's view and the kept batch table, which holds no rows (no
    # DDL runs per call, so the planned statements stay planned)
    assert sorted(scratch(con)) == [("table", 0), ("view", None)]
    del model
    gc.collect()
    assert prepared(con) == 0
    assert scratch(con) == []


def test_an_update_rolled_back_at_its_first_planned_call_leaves_the_next_one_working():
    # the kept batch table and the slot's view are made in the failed call's transaction
    # (so the rollback drops them): the next call makes them again
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con)
    first, second = arrays(1), arrays(2)
    model.partial_fit(arrow(*first), "y")
    X, y = arrays(3)
    with pytest.raises(InvalidDataError, match="declared classes"):
        model.partial_fit(arrow(X, y), "y", classes=[0, 1])
    model.partial_fit(arrow(*second), "y")
    model.partial_fit(arrow(*arrays(4)), "y")
    assert_same_fit(model, sklearn_fit(first, second, arrays(4)))


def prepared_texts(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Each prepared statement's text -> its name."""
    return dict(con.execute("SELECT statement, name FROM duckdb_prepared_statements()")
                .fetchall())


def test_after_ddl_only_a_script_reading_an_input_slot_is_prepared_again():
    # DuckDB binds a statement reading a table again at every EXECUTE (docs/incremental.md,
    # "What preparing does not save"): preparing it again after DDL would bind it twice.
    # A script reading an input slot is planned again once the catalog stays as it is
    # between two of its runs; where DDL comes before every run (an update re-creating
    # the scoring macros), planning it at every run would cost more than it saves
    from sqlnb.engines.planned import PlannedScripts

    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT 1 AS x")
    con.register("slot", pa.table({"y": [5, 6]}))
    scripts = PlannedScripts()
    assert scripts.fetch(con, "SELECT sum(x) FROM t") == [(1,)]
    assert scripts.fetch(con, "SELECT sum(y) FROM slot", key="slot schema") == [(11,)]
    before = prepared_texts(con)
    for total in (42, 43):  # DDL before each run
        con.execute(f"CREATE OR REPLACE TABLE t AS SELECT {total - 2} AS x UNION ALL SELECT 2")
        scripts.catalog_changed()
        # the table's statement is the one prepared before, and reads the new table
        assert scripts.fetch(con, "SELECT sum(x) FROM t") == [(total,)]
        assert scripts.fetch(con, "SELECT sum(y) FROM slot", key="slot schema") == [(11,)]
        assert prepared_texts(con) == before
    # no DDL since its last run: the slot's script is planned again, and stays planned
    assert scripts.fetch(con, "SELECT sum(y) FROM slot", key="slot schema") == [(11,)]
    after = prepared_texts(con)
    assert after["SELECT sum(x) FROM t"] == before["SELECT sum(x) FROM t"]
    assert after["SELECT sum(y) FROM slot"] != before["SELECT sum(y) FROM slot"]
    assert scripts.fetch(con, "SELECT sum(y) FROM slot", key="slot schema") == [(11,)]
    assert prepared_texts(con) == after
    scripts.clear(con)
    assert prepared(con) == 0


def test_a_loop_of_parquet_files_prepares_its_statements_once(tmp_path):
    # a file's scan runs as it is (its path is in its text) and creates the batch table:
    # DDL at every call, which must not make the probe, upserts and checks be prepared
    # again at every call (the 50-file benchmark loop took 1.4x as long when they were)
    con = duckdb.connect()
    batches = [arrays(seed) for seed in range(5)]
    paths = []
    for n, batch in enumerate(batches):
        paths.append(str(tmp_path / f"batch_{n}.parquet"))
        con.register("rows", arrow(*batch))
        con.execute(f"COPY rows TO '{paths[-1]}' (FORMAT parquet)")
    con.unregister("rows")
    model = sqlnb.NaiveBayes("m", con=con)
    for path in paths[:3]:
        model.partial_fit(path, "y")
    before = prepared_texts(con)
    for path in paths[3:]:
        model.partial_fit(path, "y")
    assert len(before) >= 4  # probe, upserts, checks, class count, metadata row
    assert prepared_texts(con) == before
    assert_same_fit(model, sklearn_fit(*batches))


# A model dropped while DuckDB reads a Python object for another statement on the same
# connection: its planned statements are freed once that statement is done (DuckDB 1.5
# blocks a connection called again from inside its own statement, DuckDB 2.0 refuses it).
_DROPPED_MID_STATEMENT = """
import gc, sys
import duckdb, numpy as np, pyarrow as pa
import sqlnb

con = duckdb.connect()
rng = np.random.default_rng(0)
rows = pa.table({"a": rng.normal(size=40), "y": pa.array(rng.integers(0, 2, 40))})
held = [sqlnb.NaiveBayes("m", con=con)]
held[0].partial_fit(rows, "y")
other = sqlnb.NaiveBayes("n", con=con).fit(rows, "y")
assert con.execute("SELECT count(*) FROM duckdb_prepared_statements()").fetchall()[0][0] > 0


class Dropping:
    # an Arrow stream whose reading drops the first model (DuckDB reads it in a statement)
    def __arrow_c_stream__(self, requested_schema=None):
        held.clear()
        gc.collect()
        return rows.select(["a"]).__arrow_c_stream__(requested_schema)


predicted = [row[-1] for row in other.predict(Dropping()).fetchall()]
assert len(predicted) == 40
print(con.execute("SELECT count(*) FROM duckdb_prepared_statements()").fetchall()[0][0])
"""


def test_a_model_dropped_while_duckdb_reads_a_python_object_frees_its_statements_after():
    import subprocess
    import sys

    # a subprocess: what goes wrong here is a deadlock, which must not stop the test run
    done = subprocess.run([sys.executable, "-c", _DROPPED_MID_STATEMENT],
                          check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0"]  # the dropped model's statements are gone


def test_a_cleanup_on_a_closed_connection_frees_nothing_and_raises_nothing():
    from sqlnb.engines.planned import cleanup_for

    con = duckdb.connect()
    cleanup = cleanup_for(con)
    cleanup.enter(con)  # this thread uses the connection: a cleanup runs at once
    con.close()
    cleanup.statements(con, [("p", "DEALLOCATE PREPARE p")], ["v"])
    assert not cleanup.pending
