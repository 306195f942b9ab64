"""The statements a Gaussian fit and update run on DuckDB: one scan of the source, also for
classes far apart and far from zero (summed around per-class shifts from the first rows,
or an update's learned class means, with no rescan), and a short list of statements in
all. scikit-learn is the oracle of the answers."""

from __future__ import annotations

from fractions import Fraction

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from sklearn.naive_bayes import GaussianNB

import sqlnb
from sqlnb.engines.duckdb import DuckDBEngine

SCAN = "One scan of the source"
RESCAN = "Per-class shifts for a rescan"


class CountingEngine(DuckDBEngine):
    """A DuckDB engine that keeps the text of every statement it runs."""

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        super().__init__(connection)
        self.statements: list[str] = []

    def execute(self, sql: str) -> None:
        self.statements.append(sql)
        super().execute(sql)

    def fetch(self, sql: str, parameters=None) -> list[tuple]:
        self.statements.append(sql)
        return super().fetch(sql, parameters)

    def fetch_with_names(self, sql: str):
        self.statements.append(sql)
        return super().fetch_with_names(sql)

    def fetch_readable(self, sql: str):
        self.statements.append(sql)
        return super().fetch_readable(sql)

    def execute_planned(self, sql: str, key=None) -> None:
        self.statements.append(sql)
        super().execute_planned(sql, key)

    def fetch_planned(self, sql: str, key=None) -> list[tuple]:
        self.statements.append(sql)
        return super().fetch_planned(sql, key)

    def count(self, text: str) -> int:
        return sum(text in sql for sql in self.statements)


def table(X: np.ndarray, y: np.ndarray) -> pa.Table:
    return pa.table({**{f"x{i}": X[:, i] for i in range(X.shape[1])}, "y": y})


def stored(con: duckdb.DuckDBPyConnection, data: pa.Table) -> str:
    """``data`` as a table of ``con`` (a source of unknown length: its batch is summed wide,
    around the pilot's shifts, whatever its size)."""
    con.register("frame", data)
    con.execute("CREATE OR REPLACE TABLE rows AS SELECT * FROM frame")
    con.unregister("frame")
    return "rows"


def separated(seed: int, n: int, offset: float = 1e9) -> tuple[np.ndarray, np.ndarray]:
    """Four classes 1,000 spreads apart, near ``offset``: one shift per feature cancels."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    X = offset + y[:, None] * 1e3 + rng.normal(size=(n, 3)) * np.array([1.0, 0.5, 1e2])
    return X, y


def exact_moments(X, y, w):
    """Per class and feature: the exact weighted mean and variance of the doubles."""
    w = np.ones(len(y)) if w is None else w
    theta, var = [], []
    for c in np.unique(y):
        rows = np.flatnonzero(y == c)
        weights = [Fraction(w[i]) for i in rows]
        total = sum(weights)
        means = [sum(wi * Fraction(X[i, j]) for wi, i in zip(weights, rows)) / total
                 for j in range(X.shape[1])]
        theta.append(means)
        var.append([sum(wi * (Fraction(X[i, j]) - means[j]) ** 2 for wi, i in zip(weights, rows))
                    / total for j in range(X.shape[1])])
    return theta, var


def worst(estimate, exact) -> float:
    return max(abs(float((Fraction(float(estimate[i][j])) - e) / e)) if e else abs(estimate[i][j])
               for i, row in enumerate(exact) for j, e in enumerate(row))


def assert_parity(model: sqlnb.NaiveBayes, X: np.ndarray, y: np.ndarray, w=None,
                  exact: bool = True) -> None:
    """scikit-learn's answers, and (``exact``) parameters at least as close to the exact
    moments of the doubles as scikit-learn's (or within a rounding per row: the two sum
    differently)."""
    ours = model.to_sklearn()
    oracle = GaussianNB().fit(X, y, sample_weight=w)
    theta, var = exact_moments(X, y, w) if exact else ([], [])
    floor = len(y) * np.finfo(float).eps
    np.testing.assert_allclose(ours.theta_, oracle.theta_, rtol=1e-12, atol=0)
    for name, exact_values in (("theta_", theta), ("var_", var)) if exact else ():
        mine, theirs = getattr(ours, name), getattr(oracle, name)
        if name == "var_":
            mine, theirs = mine - ours.epsilon_, theirs - oracle.epsilon_
        assert worst(mine, exact_values) <= max(worst(theirs, exact_values), floor), name
    np.testing.assert_allclose(ours.var_, oracle.var_, rtol=1e-6)
    np.testing.assert_array_equal(ours.predict(X), oracle.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), oracle.predict_proba(X), atol=1e-9)


@pytest.mark.parametrize("weighted", [False, True])
def test_classes_far_apart_at_a_large_offset_are_scanned_once(weighted):
    X, y = separated(0, 3000)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y)) if weighted else None
    data = table(X, y)
    if weighted:
        data = data.append_column("w", pa.array(w))
    engine = CountingEngine(duckdb.connect())
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False)
    model.fit(data, "y", features=["x0", "x1", "x2"], weight="w" if weighted else None)
    assert engine.count(SCAN) == 1 and engine.count(RESCAN) == 0
    # the new model's tables get the batch's rows inserted: nothing to upsert into
    assert engine.count("ON CONFLICT") == 0
    assert_parity(model, X, y, w)


def test_a_class_the_first_rows_miss_is_still_exact():
    # sorted by class: the first rows see class 0 only, so the later classes' sums cancel
    # around its shift and are summed again around their own means
    X, y = separated(2, 3000)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    con = duckdb.connect()
    engine = CountingEngine(con)
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False).fit(stored(con, table(X, y)), "y")
    assert engine.count(RESCAN) == 1 and engine.count(SCAN) == 2
    assert_parity(model, X, y)


@pytest.mark.parametrize("offset", [0.0, 1e9])
def test_a_small_input_is_summed_long_around_each_class_mean(offset):
    # a small Arrow input, sorted by class (its first rows see one class): one long scan,
    # each class's sums around its own mean computed in the same statement, no rescan;
    # the parameters as close to the exact moments as scikit-learn's two passes
    X, y = separated(2, 3000, offset=offset)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    X[y == 1, 1] = offset + 0.25  # a class constant in a feature: a zero variance
    engine = CountingEngine(duckdb.connect())
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False).fit(table(X, y), "y")
    scans = [sql for sql in engine.statements if SCAN in sql]
    assert len(scans) == 1 and "list_sum" in scans[0] and engine.count(RESCAN) == 0
    ours = model.to_sklearn()
    assert ours.theta_[1, 1] == offset + 0.25 and ours.var_[1, 1] == ours.epsilon_
    assert_parity(model, X, y)


def test_a_class_constant_in_a_feature_keeps_a_zero_variance():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 900)
    X = np.column_stack([1e9 + np.array([0.1, 1e5 / 3, -7.25])[y], rng.normal(size=900)])
    engine = CountingEngine(duckdb.connect())
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False).fit(table(X, y), "y")
    assert engine.count(RESCAN) == 0
    ours = model.to_sklearn()
    # the mean of equal doubles is that double, and their variance nothing but epsilon
    np.testing.assert_array_equal(ours.theta_[:, 0], 1e9 + np.array([0.1, 1e5 / 3, -7.25]))
    np.testing.assert_array_equal(ours.var_[:, 0], ours.epsilon_)
    assert_parity(model, X, y)


def test_updates_of_classes_far_apart_are_summed_around_the_learned_means():
    X, y = separated(4, 3000)
    engine = CountingEngine(duckdb.connect())
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False)
    batches = np.array_split(np.arange(3000), 5)
    model.partial_fit(table(X[batches[0]], y[batches[0]]), "y")
    engine.statements.clear()
    for rows in batches[1:]:
        model.partial_fit(table(X[rows], y[rows]), "y")
    assert engine.count(SCAN) == 4 and engine.count(RESCAN) == 0
    # (pairwise merges of class means near 1e9 leave ~1e-8 in var_, as they did before)
    assert_parity(model, X, y, exact=False)


@pytest.mark.parametrize("given", ["arrow", "parquet", "table"])
def test_rows_without_a_target_are_counted_without_another_scan(given, tmp_path):
    # the scan counts the labelled rows; the source's length comes from the Arrow table or
    # the Parquet footers (no count of the source), or from a count where neither is known
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(50, 2)), rng.integers(0, 2, 50)
    labels = pa.array([None if i % 7 == 0 else int(v) for i, v in enumerate(y)], pa.int64())
    data = pa.table({"x0": X[:, 0], "x1": X[:, 1], "y": labels})
    con = duckdb.connect()
    source = data
    if given == "parquet":
        import pyarrow.parquet as pq

        source = str(tmp_path / "rows.parquet")
        pq.write_table(data, source)
    elif given == "table":
        con.register("frame", data)
        con.execute("CREATE TABLE rows AS SELECT * FROM frame")
        source = "rows"
    engine = CountingEngine(con)
    with pytest.warns(sqlnb.errors.SkippedRowsWarning, match="8 row"):
        model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False).fit(source, "y")
    assert model.n_skipped_ == 8
    assert engine.count("How many rows the source has") == (given == "table")
    kept = np.arange(50) % 7 != 0
    oracle = GaussianNB().fit(X[kept], y[kept])
    np.testing.assert_allclose(model.to_sklearn().theta_, oracle.theta_, rtol=1e-12)


def test_a_small_fit_and_update_run_few_statements():
    # a refit of 1,000 x 20 rows from Arrow: the checks of the call, the metadata read (its
    # record says what the model owns and the shape of the tables it made, and its look at
    # the catalog, in the write's transaction, found them), the scan, its probe, the
    # statistics emptied and filled again, the batch dropped, the checks and the metadata
    # row (the tables and views of the same shape stay); an update of a model that exists: its
    # checks, the metadata read, scan, probe, upsert, class count, checks and the metadata
    # row. The answers are scikit-learn's.
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 3000)
    X = rng.normal(size=(3000, 20)) + y[:, None] * 3.0
    engine = CountingEngine(duckdb.connect())
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False)
    model.fit(table(X[:1000], y[:1000]), "y")
    engine.statements.clear()
    model.fit(table(X[:1000], y[:1000]), "y")
    assert len(engine.statements) <= 10, len(engine.statements)
    assert engine.count("Which of these names") == 1
    # a model without macros owns no macro name: no look at the catalog's functions
    assert engine.count("duckdb_functions()") == 0
    model.partial_fit(table(X[1000:2000], y[1000:2000]), "y")
    engine.statements.clear()
    model.partial_fit(table(X[2000:], y[2000:]), "y")
    assert len(engine.statements) <= 11, len(engine.statements)
    assert engine.count("duckdb_functions()") == 0
    oracle = GaussianNB().fit(X, y)
    ours = model.to_sklearn()
    np.testing.assert_allclose(ours.theta_, oracle.theta_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.var_, oracle.var_, rtol=1e-9)


def test_an_update_with_macros_reads_the_parameters_once():
    # macros on (the default): an update runs the statements above, then reads back the
    # metadata row and, in one statement, the classes, their constants and the terms
    # (the parameter view once), and re-creates the joint log-likelihood macro that holds
    # them; the macros then answer as scikit-learn, also after another connection's update
    rng = np.random.default_rng(11)
    y = rng.integers(0, 4, 3000)
    X = rng.normal(size=(3000, 6)) + y[:, None] * 0.7
    con = duckdb.connect()
    engine = CountingEngine(con)
    model = sqlnb.NaiveBayes("m", con=engine)
    model.partial_fit(table(X[:1000], y[:1000]), "y")
    model.partial_fit(table(X[1000:2000], y[1000:2000]), "y")
    engine.statements.clear()
    model.partial_fit(table(X[2000:2500], y[2000:2500]), "y")
    assert engine.count("The fitted parameters that scoring compiles") == 1
    assert engine.count("CREATE OR REPLACE MACRO") == 1
    assert len(engine.statements) <= 14, len(engine.statements)
    other = con.cursor()
    sqlnb.load(other, "m").partial_fit(table(X[2500:], y[2500:]), "y")
    oracle = GaussianNB().fit(X, y)
    con.register("every", table(X, y))
    rows = con.execute("SELECT m_predict(t), m_predict_proba(t) FROM every AS t").fetchall()
    assert [r[0] for r in rows] == oracle.predict(X).tolist()
    proba = np.array([[r[1][str(k)] for k in range(4)] for r in rows])
    np.testing.assert_allclose(proba, oracle.predict_proba(X), rtol=0, atol=1e-9)


@pytest.mark.parametrize("labels", ["int", "text"])
def test_per_class_shifts_of_a_fit_are_constants_of_the_scan(labels):
    # classes far apart at a large offset: the scan sums each class around the value the
    # pilot's look at the first rows found for it, written as constants (the first rows
    # are not aggregated again); labels of text, quotes included, are literals too
    X, y = separated(7, 1500, offset=1e3)
    names = np.array(["it's", 'say "b"', "c", "d"])
    data = pa.table({**{f"x{i}": X[:, i] for i in range(X.shape[1])}, "y": names[y]
                     if labels == "text" else y})
    con = duckdb.connect()
    engine = CountingEngine(con)
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False).fit(stored(con, data), "y")
    scans = [sql for sql in engine.statements if SCAN in sql]
    assert len(scans) == 1 and "VALUES" in scans[0] and "LIMIT" not in scans[0]
    assert engine.count(RESCAN) == 0
    oracle = GaussianNB().fit(X, names[y] if labels == "text" else y)
    ours = model.to_sklearn()
    assert list(ours.classes_) == list(oracle.classes_)
    np.testing.assert_allclose(ours.theta_, oracle.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, oracle.var_, rtol=1e-9)


def test_macro_names_are_claimed_only_by_writes_that_make_macros():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 200)
    data = table(rng.normal(size=(200, 2)) + y[:, None], y)
    con = duckdb.connect()
    with_macros = sqlnb.NaiveBayes("m", con=con).fit(data, "y")
    assert con.execute("SELECT m_predict({'x0': 0.0, 'x1': 2.0})").fetchone()[0] == \
        with_macros.predict(pa.table({"x0": [0.0], "x1": [2.0]})).fetchall()[0][-1]
    # a refit without macros drops them (its record names them) and records none
    sqlnb.NaiveBayes("m", con=con, sql_macros=False).fit(data, "y")
    macros = "SELECT count(*) FROM duckdb_functions() WHERE function_name LIKE 'm\\_%' ESCAPE '\\'"
    assert con.execute(macros).fetchone()[0] == 0
    assert "m_predict" not in con.execute("SELECT relations FROM m_meta").fetchone()[0]
    # a user's macro of such a name is then theirs: a write with macros refuses to take it
    con.execute("CREATE MACRO m_predict(r) AS 'mine'")
    with pytest.raises(sqlnb.errors.NameConflictError, match="m_predict"):
        sqlnb.NaiveBayes("m", con=con).fit(data, "y")
    sqlnb.NaiveBayes("m", con=con, sql_macros=False).fit(data, "y").drop()
    assert con.execute("SELECT m_predict(1)").fetchall() == [("mine",)]


def test_macros_made_after_a_write_without_them_are_owned_and_dropped():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 200)
    data = table(rng.normal(size=(200, 2)) + y[:, None], y)
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, sql_macros=False).fit(data, "y")
    model.create_macros()
    row = pa.table({"x0": [0.5], "x1": [1.5]})
    assert con.execute("SELECT m_predict({'x0': 0.5, 'x1': 1.5})").fetchone()[0] == \
        model.predict(row).fetchall()[0][-1]
    assert "m_predict" in con.execute("SELECT relations FROM m_meta").fetchone()[0]
    model.drop()
    left = "SELECT count(*) FROM duckdb_functions() WHERE function_name LIKE 'm\\_%' ESCAPE '\\'"
    assert con.execute(left).fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchone()[0] == 0


PARAMETER_CHECK = '"m_feature_params"'


def checks_of(engine: CountingEngine) -> list[str]:
    return [sql for sql in engine.statements if "Problems in the merged statistics" in sql]


def test_the_checks_of_a_fit_read_the_statistics_alone_where_no_variance_can_be_zero():
    # a feature constant in one class: its variance there is var_smoothing's epsilon, above
    # 0, which the checks know from the statistics without the parameter view
    rng = np.random.default_rng(10)
    y = rng.integers(0, 3, 300)
    X = rng.normal(size=(300, 3)) + y[:, None]
    X[y == 1, 2] = 4.25
    engine = CountingEngine(duckdb.connect())
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False).fit(table(X, y), "y")
    assert len(checks_of(engine)) == 1 and PARAMETER_CHECK not in checks_of(engine)[0]
    ours, oracle = model.to_sklearn(), GaussianNB().fit(X, y)
    np.testing.assert_allclose(ours.var_, oracle.var_, rtol=1e-9)
    np.testing.assert_array_equal(ours.predict(X), oracle.predict(X))


@pytest.mark.parametrize("var_smoothing", [1e-320, 5e-324])
def test_an_epsilon_near_zero_asks_the_full_checks(var_smoothing):
    # so small a var_smoothing that epsilon may round to 0: the statistics cannot tell,
    # the parameter view is asked; epsilon 0 leaves the constant class a point mass
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 200)
    X = (rng.normal(size=(200, 2)) + y[:, None]) * 0.25
    X[y == 0, 1] = 1.5
    engine = CountingEngine(duckdb.connect())
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False, var_smoothing=var_smoothing)
    epsilon = var_smoothing * X.var(axis=0).max()
    if epsilon > 0:
        model.fit(table(X, y), "y")
        oracle = GaussianNB(var_smoothing=var_smoothing).fit(X, y)
        np.testing.assert_allclose(model.to_sklearn().var_, oracle.var_, rtol=1e-12, atol=0)
    else:
        with pytest.raises(sqlnb.errors.InvalidDataError, match="no spread in class 0"):
            model.fit(table(X, y), "y")
    checks = checks_of(engine)
    assert len(checks) == 2 and PARAMETER_CHECK in checks[1]


DDL = ("CREATE TABLE", "CREATE OR REPLACE VIEW", "DROP TABLE IF EXISTS \"m_", "DROP VIEW")


def ddl_of(engine: CountingEngine) -> list[str]:
    return [text for text in DDL if engine.count(text)]


def assert_sklearn(model: sqlnb.NaiveBayes, X: np.ndarray, y: np.ndarray, **params) -> None:
    ours, oracle = model.to_sklearn(), GaussianNB(**params).fit(X, y)
    assert list(ours.classes_) == list(oracle.classes_)
    np.testing.assert_allclose(ours.theta_, oracle.theta_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.var_, oracle.var_, rtol=1e-9)
    data = pa.table({f"x{i}": X[:, i] for i in range(X.shape[1])})
    scored = model.predict_proba(data).fetchall()
    np.testing.assert_allclose([row[-len(oracle.classes_):] for row in scored],
                               oracle.predict_proba(X), atol=1e-9)


def blobs(seed: int, n: int = 300, features: int = 3, classes: int = 3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    return rng.normal(size=(n, features)) + y[:, None] * 2.0, y


def test_a_refit_of_the_same_shape_refills_the_tables_until_the_shape_changes():
    # the same features, class type and hyperparameters: the tables and views the last
    # fit made are refilled (no DDL); any change of those makes them again, and every
    # answer is scikit-learn's on the latest data
    engine = CountingEngine(duckdb.connect())
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False)
    X, y = blobs(20)
    model.fit(table(X, y), "y")
    assert ddl_of(engine) == ["CREATE TABLE", "CREATE OR REPLACE VIEW"]
    X, y = blobs(21)
    engine.statements.clear()
    model.fit(table(X, y), "y")
    assert ddl_of(engine) == [] and engine.count("DELETE FROM \"m_feature_stats\"") == 1
    assert_sklearn(model, X, y)
    # another var_smoothing: the parameter views' text changes
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False, var_smoothing=1e-3)
    engine.statements.clear()
    model.fit(table(X, y), "y")
    assert "CREATE OR REPLACE VIEW" in ddl_of(engine)
    assert_sklearn(model, X, y, var_smoothing=1e-3)
    # a feature more, then classes of text: the tables change
    for X, y in (blobs(22, features=4), (blobs(23)[0], np.array(["a", "b", "c"])[blobs(23)[1]])):
        engine.statements.clear()
        model.fit(table(X, y), "y")
        assert ddl_of(engine)[:1] == ["CREATE TABLE"]
        assert_sklearn(model, X, y, var_smoothing=1e-3)
        engine.statements.clear()
        model.fit(table(X, y), "y")
        assert ddl_of(engine) == []
        assert_sklearn(model, X, y, var_smoothing=1e-3)


def test_a_refill_checks_that_the_tables_and_views_are_there():
    # a view of the model dropped by hand: the next fit makes everything again
    con = duckdb.connect()
    engine = CountingEngine(con)
    X, y = blobs(24)
    sqlnb.NaiveBayes("m", con=engine, sql_macros=False).fit(table(X, y), "y")
    con.execute("DROP VIEW m_feature_params")
    engine.statements.clear()
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False).fit(table(X, y), "y")
    assert ddl_of(engine)[:1] == ["CREATE TABLE"]
    assert_sklearn(model, X, y)


def test_a_failed_refill_leaves_the_earlier_model():
    # a refit of the same shape with values too large to square: refused by the checks
    # of the refilled statistics; the transaction rolls it all back
    con = duckdb.connect()
    engine = CountingEngine(con)
    model = sqlnb.NaiveBayes("m", con=engine, sql_macros=False)
    X, y = blobs(25)
    model.fit(table(X, y), "y")
    engine.statements.clear()
    huge = X.copy()
    huge[:, 1] *= 1e160
    with pytest.raises(sqlnb.errors.InvalidDataError, match="too large to square"):
        model.fit(table(huge, y), "y")
    assert engine.count("DELETE FROM \"m_feature_stats\"") == 1 and ddl_of(engine) == []
    assert_sklearn(sqlnb.NaiveBayes("m", con=con, sql_macros=False), X, y)
    assert_sklearn(model, X, y)


def test_a_refill_with_macros_makes_the_macros_of_the_new_parameters():
    con = duckdb.connect()
    engine = CountingEngine(con)
    model = sqlnb.NaiveBayes("m", con=engine)
    X, y = blobs(26, features=2)
    model.fit(table(X, y), "y")
    X, y = blobs(27, features=2)
    X[:, 0] += 5.0
    engine.statements.clear()
    model.fit(table(X, y), "y")
    # the tables and parameter views stay; the macros (and the view they read) are made
    # from the new parameters
    assert engine.count("CREATE TABLE") == 0 and engine.count('VIEW "m_feature_params"') == 0
    assert engine.count("MACRO") >= 1
    assert_sklearn(model, X, y)
    rows = [(float(a), float(b)) for a, b in X[:20]]
    ours = [con.execute(f"SELECT m_predict({{'x0': {a!r}, 'x1': {b!r}}})").fetchone()[0]
            for a, b in rows]
    assert ours == list(GaussianNB().fit(X, y).predict(X[:20]))
