"""partial_fit, forget and merge: incremental == batch, exact unlearning, transactions.

The oracle for "incremental equals batch" is sqlnb's own one-scan ``fit`` on the union
(checked against scikit-learn elsewhere) and scikit-learn's estimators for the facade.
"""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import textwrap
import warnings

import duckdb
import numpy as np
import pandas as pd
import pytest
import sklearn.naive_bayes as skl
from scipy import sparse

import sqlnb
import sqlnb.sklearn as sq
from sqlnb.errors import (
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
    UnknownColumnError,
)

FAMILIES = ["gaussian", "multinomial", "complement", "bernoulli", "categorical"]
FEATURES = ["a", "b", "c"]
REL = 1e-12


# ---------------------------------------------------------------------- helpers
def batch(family: str, n: int, seed: int, labels=(0, 1, 2)) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(labels, n)
    if family == "gaussian":
        X = rng.normal(5.0, 2.0, (n, 3)) + np.asarray(y, dtype=float)[:, None]
    elif family == "categorical":
        X = rng.integers(0, 5 + seed % 3, (n, 3))
    else:
        X = rng.integers(0, 6, (n, 3)).astype(float)
    frame = pd.DataFrame(X, columns=FEATURES)
    frame["y"] = y
    frame["w"] = rng.uniform(0.5, 2.0, n)
    return frame


def params(con: duckdb.DuckDBPyConnection, name: str) -> list[tuple]:
    """Every derived parameter of a model, in a stable order."""
    features = con.sql(f'SELECT * FROM "{name}_feature_params" ORDER BY ALL').fetchall()
    classes = con.sql(f'SELECT * FROM "{name}_class_params" ORDER BY ALL').fetchall()
    return features + classes


def snapshot(con: duckdb.DuckDBPyConnection, name: str) -> list:
    """The model's tables, to show that a failed call changed nothing."""
    return [con.sql(f'SELECT * FROM "{name}_{role}" ORDER BY ALL').fetchall()
            for role in ("meta", "class_stats", "features", "feature_stats")]


def max_relative_difference(p: list[tuple], q: list[tuple]) -> float:
    assert len(p) == len(q)
    worst = 0.0
    for row_p, row_q in zip(p, q):
        for u, v in zip(row_p, row_q):
            if isinstance(u, float) and not (math.isinf(u) and u == v):
                worst = max(worst, abs(u - v) / max(abs(v), 1e-300))
            else:
                assert u == v, (row_p, row_q)
    return worst


def fit(con, name, family, data, weight=None, **hyper):
    return sqlnb.NaiveBayes(name, con=con, family=family, **hyper).fit(
        data, "y", features=FEATURES, weight=weight)


# ---------------------------------------------------------------------- incremental == batch
@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("family", FAMILIES)
def test_partial_fit_equals_fit_on_the_union_in_any_order(family, weight):
    con = duckdb.connect()
    parts = [batch(family, 300, 1), batch(family, 200, 2), batch(family, 150, 3)]
    fit(con, "whole", family, pd.concat(parts), weight)
    for order in ([0, 1, 2], [2, 0, 1]):
        name = "inc_" + "".join(map(str, order))
        model = sqlnb.NaiveBayes(name, con=con, family=family)
        for i in order:
            model.partial_fit(parts[i], "y", features=FEATURES, weight=weight)
        assert max_relative_difference(params(con, name), params(con, "whole")) <= REL


def test_partial_fit_of_parquet_files_equals_fit_of_the_glob(tmp_path):
    con = duckdb.connect()
    for day in range(3):
        con.execute(f"""COPY (SELECT hash(range + {day * 1000}) % 3 AS y,
                                     (range % 17) * 0.25 + {day} AS a, range % 5 AS b
                              FROM range(500)) TO '{tmp_path / f"day{day}.parquet"}'""")
    daily = sqlnb.NaiveBayes("daily", con=con)
    for day in range(3):
        daily.partial_fit(str(tmp_path / f"day{day}.parquet"), "y")
    sqlnb.NaiveBayes("whole", con=con).fit(str(tmp_path / "*.parquet"), "y")
    assert max_relative_difference(params(con, "daily"), params(con, "whole")) <= REL


def test_a_label_first_seen_in_a_later_batch_becomes_a_class():
    con = duckdb.connect()
    a, b = batch("gaussian", 200, 1, (0, 1)), batch("gaussian", 200, 2, (1, 2))
    model = sqlnb.NaiveBayes("m", con=con).partial_fit(a, "y", features=FEATURES)
    assert model.classes_ == [0, 1]
    model.partial_fit(b, "y", features=FEATURES)
    assert model.classes_ == [0, 1, 2]
    fit(con, "whole", "gaussian", pd.concat([a, b]))
    assert max_relative_difference(params(con, "m"), params(con, "whole")) <= REL


def test_declared_classes_exist_and_reject_other_labels():
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family="multinomial")
    model.partial_fit(batch("multinomial", 100, 1, (0, 1)), "y", features=FEATURES,
                      classes=[0, 1, 2])
    assert model.classes_ == [0, 1, 2]
    before = snapshot(con, "m")
    with pytest.raises(InvalidDataError, match="declared classes"):
        model.partial_fit(batch("multinomial", 100, 2, (0, 3)), "y", classes=[0, 1, 2])
    assert snapshot(con, "m") == before


def test_gaussian_variance_is_stable_with_a_huge_mean_over_100_batches():
    rng = np.random.default_rng(7)
    x = 1e9 + rng.normal(0.0, 1.0, 100 * 500)
    y = np.zeros(x.size, dtype=np.int64)
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, var_smoothing=0.0)
    for k in range(100):
        part = pd.DataFrame({"x": x[k * 500:(k + 1) * 500], "y": y[k * 500:(k + 1) * 500]})
        model.partial_fit(part, "y")
    mean = math.fsum(x) / x.size
    exact = math.fsum((v - mean) ** 2 for v in x) / x.size
    theta, var = con.execute("SELECT theta, var FROM m_feature_params").fetchone()
    assert abs(var - exact) / exact < 1e-6
    assert abs(theta - mean) / mean < 1e-15


# ---------------------------------------------------------------------- scikit-learn facade
ESTIMATORS = ["GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB"]


def _facade_data(name, n=420, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)  # class 3 is declared but never seen
    if name == "GaussianNB":
        X = rng.normal(3.0, 2.0, (n, 4)) + y[:, None]
    else:
        X = rng.integers(0, 5, (n, 4))
    return X, y, rng.uniform(0.5, 2.0, n)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_sklearn_partial_fit_matches_scikit_learn(name, weighted):
    X, y, w = _facade_data(name)
    ours, theirs = getattr(sq, name)(), getattr(skl, name)()
    for i, (lo, hi) in enumerate([(0, 150), (150, 260), (260, 420)]):
        kwargs = {"sample_weight": w[lo:hi]} if weighted else {}
        classes = [0, 1, 2, 3] if i == 0 else None
        ours.partial_fit(X[lo:hi], y[lo:hi], classes=classes, **kwargs)
        theirs.partial_fit(X[lo:hi], y[lo:hi], classes=classes, **kwargs)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_allclose(ours.class_count_, theirs.class_count_, rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # log(0) prior of the unseen class
        np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
        if name == "GaussianNB":
            # scikit-learn's partial_fit takes epsilon_ from the last batch only; ours is
            # the fit on all rows (incremental == batch), so compare var_ with that fit.
            whole = skl.GaussianNB().fit(X, y, sample_weight=w if weighted else None)
            np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(ours.var_[:3], whole.var_, rtol=1e-9)
            assert ours.epsilon_ == pytest.approx(whole.epsilon_, rel=1e-12)
        else:
            np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X),
                                       rtol=0, atol=1e-9)


def test_sklearn_partial_fit_on_sparse_input_matches_scikit_learn():
    X, y, w = _facade_data("MultinomialNB")
    Xs = sparse.csr_matrix(X)
    ours, theirs = sq.MultinomialNB(), skl.MultinomialNB()
    for lo, hi in [(0, 200), (200, 420)]:
        ours.partial_fit(Xs[lo:hi], y[lo:hi], classes=[0, 1, 2, 3], sample_weight=w[lo:hi])
        theirs.partial_fit(Xs[lo:hi], y[lo:hi], classes=[0, 1, 2, 3], sample_weight=w[lo:hi])
    np.testing.assert_allclose(ours.feature_count_, theirs.feature_count_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(Xs), theirs.predict_proba(Xs), atol=1e-9)
    ours.forget(Xs[:200], y[:200], sample_weight=w[:200])
    rest = skl.MultinomialNB().partial_fit(Xs[200:], y[200:], classes=[0, 1, 2, 3],
                                           sample_weight=w[200:])
    np.testing.assert_allclose(ours.feature_count_, rest.feature_count_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(Xs), rest.predict_proba(Xs), atol=1e-9)


def test_sklearn_partial_fit_rules():
    X, y, _ = _facade_data("MultinomialNB", 30)
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        sq.MultinomialNB().partial_fit(X, y)
    model = sq.MultinomialNB().partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="is not the same as on last call"):
        model.partial_fit(X, y, classes=[0, 1, 2, 3])
    before = model.feature_count_.copy()
    with pytest.raises(ValueError, match=r"label\(s\) \[7\] in y do not exist"):
        model.partial_fit(X[:2], [0, 7])
    model.partial_fit(X, y)  # still usable, and nothing was added by the failed call
    np.testing.assert_allclose(model.feature_count_, 2 * before)


def test_sklearn_partial_fit_after_fit_and_new_hyperparameters():
    X, y, _ = _facade_data("MultinomialNB")
    ours = sq.MultinomialNB().fit(X[:200], y[:200])
    theirs = skl.MultinomialNB().fit(X[:200], y[:200])
    ours.set_params(alpha=0.25)
    theirs.set_params(alpha=0.25)
    ours.partial_fit(X[200:], y[200:])
    theirs.partial_fit(X[200:], y[200:])
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_sklearn_forget_equals_fit_on_the_rest(name):
    X, y, w = _facade_data(name)
    model = getattr(sq, name)().fit(X, y, sample_weight=w)
    model.forget(X[:100], y[:100], sample_weight=w[:100])
    rest = getattr(skl, name)().fit(X[100:], y[100:], sample_weight=w[100:])
    np.testing.assert_allclose(model.class_count_, rest.class_count_, rtol=1e-12)
    np.testing.assert_allclose(model.predict_proba(X), rest.predict_proba(X), atol=1e-9)


# ---------------------------------------------------------------------- forget
@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("family", FAMILIES)
def test_forget_undoes_a_batch_exactly(family, weight):
    con = duckdb.connect()
    a, b = batch(family, 300, 1), batch(family, 250, 2)
    model = fit(con, "m", family, pd.concat([a, b]), weight)
    model.forget(a, "y", features=FEATURES, weight=weight)
    fit(con, "only_b", family, b, weight)
    assert max_relative_difference(params(con, "m"), params(con, "only_b")) <= 1e-10


def test_a_class_whose_rows_are_all_forgotten_disappears():
    con = duckdb.connect()
    a, b = batch("gaussian", 200, 1, (0, 1)), batch("gaussian", 100, 2, (5,))
    model = fit(con, "m", "gaussian", pd.concat([a, b]))
    assert model.classes_ == [0, 1, 5]
    model.forget(b, "y", features=FEATURES)
    assert model.classes_ == [0, 1]
    fit(con, "only_a", "gaussian", a)
    assert max_relative_difference(params(con, "m"), params(con, "only_a")) <= 1e-10


@pytest.mark.parametrize("family", FAMILIES)
def test_forgetting_more_than_was_learned_is_an_error_and_changes_nothing(family):
    con = duckdb.connect()
    a, b = batch(family, 200, 1), batch(family, 100, 2)
    model = fit(con, "m", family, pd.concat([a, b]))
    before = snapshot(con, "m")
    twice = pd.concat([a, a])
    with pytest.raises(InvalidDataError, match="cannot forget more than"):
        model.forget(twice, "y", features=FEATURES)
    unknown_class = a.assign(y=9)
    with pytest.raises(InvalidDataError, match="cannot forget more than"):
        model.forget(unknown_class, "y", features=FEATURES)
    with pytest.raises(InvalidDataError, match="without any rows"):
        model.forget(pd.concat([a, b]), "y", features=FEATURES)
    assert snapshot(con, "m") == before


def test_forgetting_an_unseen_category_is_an_error():
    con = duckdb.connect()
    a = batch("categorical", 200, 1)
    model = fit(con, "m", "categorical", a)
    before = snapshot(con, "m")
    with pytest.raises(InvalidDataError, match="cannot forget more than"):
        model.forget(a.head(5).assign(a=99), "y", features=FEATURES)
    assert snapshot(con, "m") == before


def test_forget_needs_a_fitted_model():
    with pytest.raises(NotFittedError):
        sqlnb.NaiveBayes("m").forget(batch("gaussian", 10, 1), "y")


# ---------------------------------------------------------------------- merge
@pytest.mark.parametrize("family", FAMILIES)
def test_merging_shards_equals_the_fit_on_their_union(family):
    con = duckdb.connect()
    parts = [batch(family, 200, 1), batch(family, 150, 2, (1, 2, 3)), batch(family, 90, 3)]
    for i, part in enumerate(parts):
        fit(con, f"day{i}", family, part, "w")
    fit(con, "whole", family, pd.concat(parts), "w")
    merged = sqlnb.merge(con, ["day0", "day1", "day2"], into="week")
    assert merged.classes_ == [0, 1, 2, 3]
    assert max_relative_difference(params(con, "week"), params(con, "whole")) <= REL
    # model.merge adds to an existing model; the sources are untouched
    day0 = sqlnb.load(con, "day0")
    day0.merge("day1", sqlnb.load(con, "day2"))
    assert max_relative_difference(params(con, "day0"), params(con, "whole")) <= REL
    assert sqlnb.load(con, "day1").classes_ == [1, 2, 3]


def test_merging_models_from_attached_database_files(tmp_path):
    a, b = batch("gaussian", 300, 1), batch("gaussian", 200, 2)
    for name, part in (("monday", a), ("tuesday", b)):
        with duckdb.connect(str(tmp_path / f"{name}.duckdb")) as con:
            fit(con, f"m_{name}", "gaussian", part)
    con = duckdb.connect(str(tmp_path / "week.duckdb"))
    con.execute(f"ATTACH '{tmp_path / 'monday.duckdb'}' AS monday (READ_ONLY)")
    con.execute(f"ATTACH '{tmp_path / 'tuesday.duckdb'}' AS tuesday (READ_ONLY)")
    sqlnb.merge(con, ["monday.m_monday", "tuesday.m_tuesday"], into="m_week")
    fit(con, "whole", "gaussian", pd.concat([a, b]))
    assert max_relative_difference(params(con, "m_week"), params(con, "whole")) <= REL


def test_merging_models_with_different_specifications_is_refused():
    con = duckdb.connect()
    fit(con, "g", "gaussian", batch("gaussian", 50, 1))
    fit(con, "m", "multinomial", batch("multinomial", 50, 1))
    fit(con, "g2", "gaussian", batch("gaussian", 50, 1), var_smoothing=1e-3)
    fit(con, "week", "gaussian", batch("gaussian", 50, 3))
    before = snapshot(con, "week")
    for other in ("m", "g2"):
        with pytest.raises(InvalidParameterError, match="different specifications"):
            sqlnb.merge(con, ["g", other], into="week")
    assert snapshot(con, "week") == before


# ---------------------------------------------------------------------- transactions
def _fitted(con, family="gaussian", **hyper):
    model = fit(con, "m", family, batch(family, 200, 1), **hyper)
    return model, snapshot(con, "m")


def test_a_batch_with_a_bad_value_changes_nothing():
    con = duckdb.connect()
    model, before = _fitted(con, "multinomial", missing="error")
    bad = batch("multinomial", 100, 2)
    bad.loc[57, "b"] = -3.0
    with pytest.raises(InvalidDataError, match="negative"):
        model.partial_fit(bad, "y")
    missing = batch("multinomial", 100, 2)
    missing.loc[3, "a"] = None
    with pytest.raises(InvalidDataError, match="missing"):
        model.partial_fit(missing, "y")
    assert snapshot(con, "m") == before


def test_a_batch_with_a_missing_column_or_new_types_changes_nothing():
    con = duckdb.connect()
    model, before = _fitted(con)
    with pytest.raises(UnknownColumnError):
        model.partial_fit(batch("gaussian", 50, 2).drop(columns="b"), "y")
    with pytest.raises(InvalidDataError):
        model.partial_fit(batch("gaussian", 50, 2).assign(b="text"), "y")
    with pytest.raises(InvalidDataError, match="target"):
        model.partial_fit(batch("gaussian", 50, 2).assign(y="zero"), "y")
    with pytest.raises(InvalidDataError, match="features"):
        model.partial_fit(batch("gaussian", 50, 2), "y", features=["a", "b"])
    with pytest.raises(InvalidParameterError, match="gaussian model"):
        sqlnb.NaiveBayes("m", con=con, family="multinomial").partial_fit(
            batch("multinomial", 50, 2), "y")
    assert snapshot(con, "m") == before


def test_a_batch_whose_column_types_change_a_columns_reading_changes_nothing():
    """A categorical column keeps its coding (integer codes or the very type), and a
    family="auto" column the family its first fit gave it."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, (i % 3)::VARCHAR AS k, i * 0.5 AS x "
                "FROM range(12) r(i)")
    con.execute("CREATE TABLE codes AS SELECT i % 2 AS y, i % 3 AS k, i * 0.5 AS x "
                "FROM range(6) r(i)")
    con.execute("CREATE TABLE counts AS SELECT i % 2 AS y, (i % 3)::VARCHAR AS k, i AS x "
                "FROM range(6) r(i)")
    categorical = sqlnb.NaiveBayes("m", con=con, family="categorical").fit(
        "t", "y", features=["k"])
    before = snapshot(con, "m")
    with pytest.raises(InvalidDataError, match="feature 'k' was VARCHAR in model 'm' but is "
                       "BIGINT in the batch"):
        categorical.partial_fit("codes", "y", features=["k"])
    assert snapshot(con, "m") == before
    auto = sqlnb.NaiveBayes("a", con=con, family="auto", integers="poisson",
                             families={"k": "categorical"}).fit("t", "y")

    def parts_snapshot() -> list:
        return [con.sql(f'SELECT * FROM "a_{role}" ORDER BY ALL').fetchall()
                for role in ("meta", "class_stats", "gaussian_stats", "categorical_stats")]

    before = parts_snapshot()
    with pytest.raises(InvalidDataError, match="column 'x' of model 'a' is DECIMAL.* "
                       "\\(gaussian\\) but BIGINT in the batch, which family='auto' would "
                       "model as poisson"):
        auto.partial_fit("counts", "y")
    with pytest.raises(InvalidDataError, match="feature 'k' was VARCHAR in model 'a' but is "
                       "BIGINT in the batch"):
        auto.partial_fit("codes", "y")
    assert parts_snapshot() == before
    auto.partial_fit("t", "y")  # the same types continue
    assert con.sql('SELECT sum(n) FROM "a_class_stats"').fetchall()[0][0] == 24


def test_a_statement_failing_inside_the_upsert_rolls_everything_back():
    con = duckdb.connect()
    con.execute("CREATE TABLE first AS SELECT CAST(range % 2 AS INTEGER) AS y, "
                "range * 0.5 AS x FROM range(100)")
    model = sqlnb.NaiveBayes("m", con=con).partial_fit("first", "y")
    before = snapshot(con, "m")
    # a label that does not fit the model's INTEGER class column fails in the INSERT
    con.execute("CREATE TABLE second AS SELECT CAST(range % 2 AS BIGINT) * 10000000000 AS y, "
                "range * 0.5 AS x FROM range(100)")
    with pytest.raises(duckdb.Error):
        model.partial_fit("second", "y")
    assert snapshot(con, "m") == before
    assert model.partial_fit("first", "y").classes_ == [0, 1]


def test_bernoulli_cannot_continue_with_another_binarize():
    con = duckdb.connect()
    fit(con, "m", "bernoulli", batch("bernoulli", 50, 1))
    with pytest.raises(InvalidParameterError, match="binarize"):
        sqlnb.NaiveBayes("m", con=con, family="bernoulli", binarize=2.0).partial_fit(
            batch("bernoulli", 50, 2), "y", features=FEATURES)


CHILD = textwrap.dedent("""
    import sys, duckdb, sqlnb
    con = duckdb.connect(sys.argv[1])
    con.execute("SET enable_progress_bar = false")  # stdout carries only the child's news
    model = sqlnb.load(con, "m")
    run = model.pipeline.run_planned  # an update's upsert is planned once per text
    def announce(template, key=None, **context):
        if template == "update/merge.sql":
            print("merging", flush=True)
        return run(template, key, **context)
    model.pipeline.run_planned = announce
    model.partial_fit("big", "y")
    print("committed", flush=True)
""")


def test_a_process_killed_in_the_middle_of_a_large_merge_leaves_the_model_as_it_was(tmp_path):
    path = str(tmp_path / "model.duckdb")
    with duckdb.connect(path) as con:
        # a categorical model whose next batch brings two million new categories
        con.execute("CREATE TABLE small AS SELECT range % 3 AS y, CAST(range AS VARCHAR) AS a "
                    "FROM range(1000)")
        con.execute("CREATE TABLE big AS SELECT range % 3 AS y, 'v' || range AS a "
                    "FROM range(2000000)")
        sqlnb.NaiveBayes("m", con=con, family="categorical").fit("small", "y")
        before = snapshot(con, "m")
    child = subprocess.Popen([sys.executable, "-c", CHILD, path], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    lines = []
    while (line := child.stdout.readline()) and line.strip() != "merging":
        lines.append(line)  # anything else a library printed: not the signal
    if not line:
        child.kill()  # never let it finish: the whole update of 2M categories is large
        child.wait()
        pytest.fail(f"the child did not reach the merge: {lines} {child.stderr.read()}")
    child.send_signal(signal.SIGKILL)
    rest = child.stdout.read()
    child.wait()
    child.stderr.close()
    assert child.returncode == -signal.SIGKILL
    assert "committed" not in rest
    with duckdb.connect(path) as con:
        assert snapshot(con, "m") == before
        sqlnb.load(con, "m").partial_fit("small", "y")
        assert con.execute("SELECT sum(n) FROM m_class_stats").fetchone()[0] == 2000


# ---------------------------------------------------------------------- documentation
def test_the_example_script_runs(tmp_path, monkeypatch, capsys):
    import runpy
    from pathlib import Path

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    runpy.run_path(str(Path(__file__).parent.parent / "examples" / "incremental.py"))
    out = capsys.readouterr().out
    assert "classes after three days: [0, 1, 2]" in out
    assert "training rows after forgetting Tuesday: 2000" in out


def test_the_module_examples_run():
    import doctest

    import sqlnb.incremental

    assert doctest.testmod(sqlnb.incremental).failed == 0


def test_the_documented_example_runs(tmp_path, monkeypatch, capsys):
    import runpy
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "incremental.md").read_text()
    script = tmp_path / "example.py"
    script.write_text(text.split("```python\n", 1)[1].split("```", 1)[0])
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(script))
    assert capsys.readouterr().out.split("\n")[:2] == ["[0, 1, 2]", "[0, 1]"]


def test_partial_fit_treats_nan_as_missing_like_fit():
    import pyarrow as pa

    rng = np.random.default_rng(5)
    x = rng.normal(size=400)
    x[rng.random(400) < 0.1] = np.nan
    table = pa.table({"x": x, "z": rng.normal(size=400), "y": rng.integers(0, 3, 400)})
    con = duckdb.connect()
    whole = sqlnb.NaiveBayes("whole", con=con).fit(table, "y")
    parts = sqlnb.NaiveBayes("parts", con=con)
    parts.partial_fit(table.slice(0, 150), "y")
    parts.partial_fit(table.slice(150), "y")
    expected = con.sql('SELECT * FROM "whole_feature_params" ORDER BY class, feature').fetchall()
    got = con.sql('SELECT * FROM "parts_feature_params" ORDER BY class, feature').fetchall()
    np.testing.assert_allclose([r[2:] for r in got], [r[2:] for r in expected], rtol=1e-12)
    assert whole.predict(table).df()["prediction"].tolist() == \
        parts.predict(table).df()["prediction"].tolist()


# ---------------------------------------------------------------------- cheap updates
def _macro_probabilities(con, name: str, table: str) -> np.ndarray:
    rows = con.execute(f"SELECT {name}_predict_proba(t) FROM {table} AS t "
                       "ORDER BY t.a, t.b, t.c").fetchall()
    return np.array([[row[0][str(label)] for label in (0, 1, 2)] for row in rows])


@pytest.mark.parametrize("sign", [1, -1])
def test_the_sql_macros_follow_an_update_that_adds_no_class_or_feature(con, sign):
    """partial_fit and forget of batches with known classes and features keep the parameter
    views, but a plain SQL client's macros still answer with the new parameters."""
    first, second = batch("gaussian", 80, 1), batch("gaussian", 60, 2)
    con.register("first_batch", first)
    con.register("second_batch", second)
    con.execute("CREATE TABLE both_batches AS SELECT * FROM first_batch "
                "UNION ALL SELECT * FROM second_batch")
    if sign > 0:
        model = sqlnb.NaiveBayes("m", con=con).fit("first_batch", "y", features=FEATURES)
        model.partial_fit("second_batch", "y")
        rows = pd.concat([first, second])
    else:
        model = sqlnb.NaiveBayes("m", con=con).fit("both_batches", "y", features=FEATURES)
        model.forget("second_batch", "y")
        rows = first
    oracle = skl.GaussianNB().fit(rows[FEATURES].to_numpy(), rows["y"].to_numpy())
    ordered = second.sort_values(FEATURES)
    expected = oracle.predict_proba(ordered[FEATURES].to_numpy())
    from_macros = _macro_probabilities(con, "m", "second_batch")
    facade = model.predict_proba("second_batch").df().sort_values(FEATURES)
    assert np.abs(from_macros - expected).max() < 1e-9
    assert np.abs(facade[[f"proba_{k}" for k in (0, 1, 2)]].to_numpy() - expected).max() < 1e-9


# ---------------------------------------------------------------------- far from the origin
def _exact_epsilon(x: np.ndarray) -> float:
    """var_smoothing (1e-9) x the variance of the doubles ``x``, exactly (then rounded)."""
    from fractions import Fraction

    values = [Fraction(v) for v in x]
    mean = sum(values) / len(values)
    return float(Fraction(1e-9) * sum((v - mean) ** 2 for v in values) / len(values))


def _offset_day(seed: int, offset: float) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 300)
    return pd.DataFrame({"x": offset + y * 0.5 + rng.normal(0.0, 0.1, 300), "y": y})


@pytest.mark.parametrize("into", ["week", "day1"])
def test_merging_models_with_different_origins_keeps_epsilon_exact(into):
    # each model keeps its class means relative to its own first batch's mean (its origin):
    # merging moves one onto the other's, and epsilon_ stays exact at a 1e9 offset
    con = duckdb.connect()
    days = [_offset_day(1, 1e9), _offset_day(2, 1e9 + 7.0)]
    for i, day in enumerate(days):
        sqlnb.NaiveBayes(f"day{i}", con=con).fit(day, "y")
    origins = [sqlnb.load(con, f"day{i}").meta["features"][0]["origin"] for i in range(2)]
    assert origins[1] - origins[0] == pytest.approx(7.0, abs=0.1)
    merged = sqlnb.merge(con, ["day0", "day1"], into=into).to_sklearn()
    whole = pd.concat(days)
    assert merged.epsilon_ == pytest.approx(_exact_epsilon(whole["x"].to_numpy()), rel=1e-14)
    reference = skl.GaussianNB().fit(whole[["x"]].to_numpy(), whole["y"].to_numpy())
    np.testing.assert_allclose(merged.theta_, reference.theta_, rtol=1e-14)
    # the weighted class means themselves are doubles near 1e9 (as in scikit-learn's
    # partial_fit): the 3.5 between the days' means enters var_ with ~8 digits
    np.testing.assert_allclose(merged.var_, reference.var_, rtol=1e-7)


def test_forgetting_at_a_huge_offset_keeps_epsilon_exact():
    con = duckdb.connect()
    days = [_offset_day(3, 1e9), _offset_day(4, 1e9 + 3.0)]
    model = sqlnb.NaiveBayes("m", con=con).fit(pd.concat(days), "y")
    model.forget(days[0], "y")
    assert model.to_sklearn().epsilon_ == pytest.approx(
        _exact_epsilon(days[1]["x"].to_numpy()), rel=1e-12)
