"""partial_fit, forget and merge of models made of parts: family="auto" (one part per
family), per-group (group_by) and per-group family="auto".

Oracles: scikit-learn where it has the model (family="auto" over only Gaussian columns is
GaussianNB, over only integer codes taken as categories CategoricalNB), otherwise ``fit`` on
the union of the batches (or on what is left after a forget).
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import CategoricalNB, GaussianNB

import sqlnb
from sqlnb.errors import InvalidDataError, InvalidParameterError, UnknownColumnError

TOL = {"rtol": 1e-9, "atol": 1e-9}
KINDS = [  # (family, group_by)
    ("auto", None),
    ("gaussian", "store"),
    ("categorical", "store"),
    ("auto", "store"),
]


def _frame(n: int = 300, seed: int = 0) -> pd.DataFrame:
    """Mixed columns (Gaussian, categorical, Bernoulli, Poisson) in three stores."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    return pd.DataFrame({
        "y": np.array(["low", "mid", "high"])[y],
        "x": rng.normal(y * 1.5, 1.0 + y * 0.3),
        "z": rng.normal(100.0 - y, 2.0),
        "plan": np.array(["a", "b", "c", "d"])[(rng.integers(0, 3, n) + y) % 4],
        "member": rng.random(n) < 0.2 + 0.3 * y,
        "visits": rng.poisson(1.0 + 2.0 * y),
        "store": rng.integers(0, 3, n),
    })


def _features(family: str) -> list[str]:
    return {"auto": ["x", "z", "plan", "member", "visits"], "gaussian": ["x", "z"],
            "categorical": ["plan", "visits"]}[family]


def _model(con, name, family, **params):
    extra = {"families": {"visits": "poisson"}} if family == "auto" else {}
    return sqlnb.NaiveBayes(name, con=con, family=family, **extra, **params)


def _fit(con, name, family, group_by, table):
    kwargs = {} if group_by is None else {"group_by": group_by}
    return _model(con, name, family).fit(table, "y", features=_features(family), **kwargs)


def _scored(model, table="everything"):
    """Predictions and probabilities, rows in one order (the source's row id)."""
    out = model.predict_proba(table).df().sort_values("id")
    labels = model.predict(table).df().sort_values("id")["prediction"].tolist()
    return (labels,
            out[[f"proba_{c}" for c in model.classes_]].to_numpy())


def _same(model, reference, table="everything"):
    assert model.classes_ == reference.classes_
    labels, proba = _scored(model, table)
    expected_labels, expected = _scored(reference, table)
    assert labels == expected_labels
    np.testing.assert_allclose(proba, expected, **TOL)


def _parameters(model):
    """Every parameter view of the model (each part's, pooled and per group), sorted."""
    con = model.con
    names = [r[0] for r in con.execute(
        "SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY view_name").fetchall()
        if r[0].startswith(model.name + "_") and r[0].endswith("_params")
        and not r[0].endswith("_scoring_params")]
    return {name[len(model.name):]: con.execute(f'SELECT * FROM "{name}" ORDER BY ALL').fetchall()
            for name in names}


def _same_parameters(model, reference):
    ours, theirs = _parameters(model), _parameters(reference)
    assert ours.keys() == theirs.keys() and ours
    for view in ours:
        assert len(ours[view]) == len(theirs[view]), view
        for row, expected in zip(ours[view], theirs[view]):
            for a, b in zip(row, expected):
                if isinstance(a, float) and isinstance(b, float):
                    assert a == pytest.approx(b, rel=1e-9, abs=1e-9), view
                else:
                    assert a == b, view


@pytest.fixture
def con():
    con = duckdb.connect()
    frame = _frame()
    frame.insert(0, "id", np.arange(len(frame)))
    con.execute("CREATE TABLE everything AS SELECT * FROM frame")
    # A has no 'high' class (it arrives with B), and no store 2 (a group B brings)
    con.execute("CREATE TABLE a AS SELECT * FROM everything "
                "WHERE id < 150 AND y <> 'high' AND store <> 2")
    con.execute("CREATE TABLE b AS SELECT * FROM everything EXCEPT SELECT * FROM a")
    return con


# ---------------------------------------------------------------------- partial_fit
@pytest.mark.parametrize("family, group_by", KINDS)
def test_partial_fit_in_batches_equals_fit_on_the_union(con, family, group_by):
    kwargs = {} if group_by is None else {"group_by": group_by}
    model = _model(con, "m", family)
    model.partial_fit("a", "y", features=_features(family), **kwargs)
    assert model.classes_ == ["low", "mid"]
    model.partial_fit("b", "y", **kwargs)  # a new class and (per group) a new group
    reference = _fit(con, "ref", family, group_by, "everything")
    _same(model, reference)
    _same_parameters(model, reference)


def test_a_per_group_update_may_leave_group_by_out_but_not_change_it(con):
    model = _fit(con, "m", "gaussian", "store", "a")
    model.partial_fit("b", "y")  # the model's group columns
    _same(model, _fit(con, "ref", "gaussian", "store", "everything"))
    before = _scored(model)
    with pytest.raises(InvalidParameterError, match="group_by"):
        model.partial_fit("b", "y", group_by="member")
    plain = _fit(con, "plain", "gaussian", None, "a")
    with pytest.raises(InvalidParameterError, match="group_by"):
        plain.partial_fit("b", "y", group_by="store")
    labels, proba = _scored(model)
    assert labels == before[0] and np.array_equal(proba, before[1])


def test_auto_over_gaussian_columns_updates_as_gaussian_nb(con):
    frame = con.sql("SELECT * FROM everything ORDER BY id").df()
    model = sqlnb.NaiveBayes("m", con=con, family="auto")
    model.partial_fit("a", "y", features=["x", "z"], classes=["high", "low", "mid"])
    model.partial_fit("b", "y")
    # (scikit-learn's partial_fit takes var_smoothing's epsilon from the last batch only;
    # sqlnb's equals its fit on every row)
    oracle = GaussianNB().fit(frame[["x", "z"]], frame["y"])
    labels, proba = _scored(model)
    np.testing.assert_allclose(proba, oracle.predict_proba(frame[["x", "z"]]), **TOL)
    assert labels == oracle.predict(frame[["x", "z"]]).tolist()


def test_auto_over_integer_codes_updates_as_categorical_nb(con):
    frame = con.sql("SELECT * FROM everything ORDER BY id").df()
    model = sqlnb.NaiveBayes("m", con=con, family="auto", integers="categorical")
    model.partial_fit("a", "y", features=["visits", "store"])
    model.partial_fit("b", "y")
    oracle = CategoricalNB().fit(frame[["visits", "store"]], frame["y"])
    _, proba = _scored(model)
    np.testing.assert_allclose(proba, oracle.predict_proba(frame[["visits", "store"]]), **TOL)


@pytest.mark.parametrize("family, group_by", [("auto", None), ("auto", "store")])
def test_declared_classes_and_a_label_outside_them(con, family, group_by):
    kwargs = {} if group_by is None else {"group_by": group_by}
    model = _model(con, "m", family)
    model.partial_fit("a", "y", features=_features(family), classes=["high", "low", "mid"],
                      **kwargs)
    assert model.classes_ == ["high", "low", "mid"]
    # 'high' has no rows yet: probability 0, the others as a model without it
    labels, proba = _scored(model)
    expected_labels, expected = _scored(_fit(con, "without", family, group_by, "a"))
    assert labels == expected_labels
    np.testing.assert_array_equal(proba[:, 0], 0.0)
    np.testing.assert_allclose(proba[:, 1:], expected, **TOL)
    model.partial_fit("b", "y", classes=["high", "low", "mid"])
    _same(model, _fit(con, "ref", family, group_by, "everything"))
    before = _scored(model)
    with pytest.raises(InvalidDataError, match="declared classes"):
        model.partial_fit("b", "y", classes=["low", "mid"])
    labels, proba = _scored(model)
    assert labels == before[0] and np.array_equal(proba, before[1])


# ---------------------------------------------------------------------- forget
@pytest.mark.parametrize("family, group_by", KINDS)
def test_forget_equals_fit_on_the_rest(con, family, group_by):
    model = _fit(con, "m", family, group_by, "everything")
    model.forget("b", "y")  # 'high' and (per group) store 2 are left without rows
    assert model.classes_ == ["low", "mid"]
    reference = _fit(con, "ref", family, group_by, "a")
    _same(model, reference)
    _same_parameters(model, reference)
    if group_by:  # the emptied group is gone: its rows go to the pooled model
        groups = con.execute('SELECT DISTINCT store FROM "m_group_class_stats" '
                             "ORDER BY ALL").fetchall()
        assert groups == [(0,), (1,)]


@pytest.mark.parametrize("family, group_by", KINDS)
def test_forgetting_what_was_never_learned_raises_and_changes_nothing(con, family, group_by):
    model = _fit(con, "m", family, group_by, "a")
    before = _scored(model)
    stats = _parameters(model)
    with pytest.raises(InvalidDataError, match="cannot forget more|never|learned"):
        model.forget("b", "y")
    labels, proba = _scored(model)
    assert labels == before[0] and np.array_equal(proba, before[1])
    assert _parameters(model) == stats


# ---------------------------------------------------------------------- merge
@pytest.mark.parametrize("family, group_by", KINDS)
def test_merge_equals_fit_on_the_union(con, family, group_by):
    first = _fit(con, "first", family, group_by, "a")
    second = _fit(con, "second", family, group_by, "b")
    merged = sqlnb.merge(con, [first, "second"], into="merged")
    reference = _fit(con, "ref", family, group_by, "everything")
    _same(merged, reference)
    _same_parameters(merged, reference)
    first.merge(second)  # into one of them
    _same(first, reference)


def test_merge_of_models_in_attached_database_files(con, tmp_path):
    for name, table in (("monday", "a"), ("tuesday", "b")):
        with duckdb.connect(str(tmp_path / f"{name}.duckdb")) as day:
            day.register("rows", con.sql(f"SELECT * FROM {table}").df())
            _fit(day, name, "auto", "store", "rows")
    con.execute(f"ATTACH '{tmp_path / 'monday.duckdb'}' AS monday (READ_ONLY)")
    con.execute(f"ATTACH '{tmp_path / 'tuesday.duckdb'}' AS tuesday (READ_ONLY)")
    merged = sqlnb.merge(con, ["monday.monday", "tuesday.tuesday"], into="week")
    reference = _fit(con, "ref", "auto", "store", "everything")
    _same(merged, reference)
    _same_parameters(merged, reference)


def test_models_of_other_parts_or_groups_do_not_merge(con):
    auto = _fit(con, "auto_m", "auto", None, "a")
    grouped = _fit(con, "auto_g", "auto", "store", "b")
    other = sqlnb.NaiveBayes("other", con=con, family="auto").fit(
        "a", "y", features=["x", "z", "plan", "member", "visits"])  # visits: gaussian
    with pytest.raises(InvalidParameterError, match="different specifications"):
        sqlnb.merge(con, [auto, grouped], into="x")
    with pytest.raises(InvalidParameterError, match="famil"):
        sqlnb.merge(con, [auto, other], into="x")


# ---------------------------------------------------------------------- family="auto" batches
def test_a_batch_whose_column_changed_type_is_refused_and_changes_nothing(con):
    model = _fit(con, "m", "auto", None, "a")
    before = _scored(model)
    con.execute("CREATE TABLE retyped AS SELECT * REPLACE (CAST(x AS VARCHAR) AS x) FROM b")
    with pytest.raises(InvalidDataError, match="'x'"):
        model.partial_fit("retyped", "y")
    con.execute("CREATE TABLE coded AS SELECT * REPLACE (length(plan) AS plan) FROM b")
    with pytest.raises(InvalidDataError, match="'plan'"):
        model.partial_fit("coded", "y")
    con.execute("CREATE TABLE lacking AS SELECT * EXCLUDE (member) FROM b")
    with pytest.raises(UnknownColumnError, match="member"):
        model.partial_fit("lacking", "y")
    with pytest.raises(InvalidDataError, match="'x'"):
        model.forget("retyped", "y")
    labels, proba = _scored(model)
    assert labels == before[0] and np.array_equal(proba, before[1])
    model.partial_fit("b", "y")  # the model still updates
    _same(model, _fit(con, "ref", "auto", None, "everything"))


def test_a_failing_update_leaves_the_previous_model(con):
    model = _fit(con, "m", "auto", "store", "a")
    before, stats = _scored(model), _parameters(model)
    con.execute("CREATE TABLE negative AS SELECT * REPLACE (-visits - 1 AS visits) FROM b")
    with pytest.raises(InvalidDataError, match="visits"):  # Poisson counts are not negative
        model.partial_fit("negative", "y")
    labels, proba = _scored(model)
    assert labels == before[0] and np.array_equal(proba, before[1])
    assert _parameters(model) == stats


# ---------------------------------------------------------------------- per-group auto
def test_each_group_of_an_auto_model_equals_an_auto_fit_on_its_rows(con):
    model = _fit(con, "m", "auto", "store", "everything")
    for store in range(3):
        con.execute(f"CREATE OR REPLACE VIEW one AS SELECT * FROM everything WHERE store = {store}")
        alone = _fit(con, f"alone{store}", "auto", None, "one")
        labels, proba = _scored(model, "one")
        expected_labels, expected = _scored(alone, "one")
        assert labels == expected_labels
        np.testing.assert_allclose(proba, expected, **TOL)


def test_an_ordinary_refit_removes_the_group_parts(con):
    _fit(con, "m", "auto", "store", "everything")
    sqlnb.NaiveBayes("m", con=con).fit("everything", "y", features=["x", "z"])
    relations = con.execute("SELECT table_name FROM duckdb_tables() UNION ALL SELECT view_name "
                            "FROM duckdb_views() WHERE NOT internal").fetchall()
    assert not [r for r in relations if r[0].startswith("m_group")
                or r[0].startswith(("m_gaussian", "m_categorical"))]


@pytest.mark.parametrize("family, group_by", KINDS)
def test_macros_and_to_sql_agree_with_predict_after_updates(con, family, group_by):
    kwargs = {} if group_by is None else {"group_by": group_by}
    model = _model(con, "m", family)
    model.partial_fit("a", "y", features=_features(family), **kwargs)
    model.partial_fit("b", "y")
    model.forget("a", "y")
    labels, proba = _scored(model)
    rows = con.sql("SELECT m_predict(e) AS p, m_predict_proba(e) AS q FROM everything e "
                   "ORDER BY id").fetchall()
    assert [r[0] for r in rows] == labels
    np.testing.assert_allclose([[r[1][c] for c in model.classes_] for r in rows], proba,
                               **TOL)
    standalone = con.sql(model.to_sql("everything", output="predict_proba")).df()
    standalone = standalone.sort_values("id")
    assert standalone["prediction"].tolist() == labels
    np.testing.assert_allclose(
        standalone[[f"proba_{c}" for c in model.classes_]].to_numpy(), proba, **TOL)
