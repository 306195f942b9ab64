"""Categorical features with many categories, and wide mixed models, against scikit-learn.

A feature with more than ``compiler.INLINE_MAX_CATEGORIES`` categories is scored by a join
with a relation of its coefficients; the others by a lookup written once per feature; the
wide parts of a mixed model by the arrays. Each way must give scikit-learn's answers through
``predict*``, the SQL macros and ``to_sql``, and keep unseen categories and missing values
as before (checked against the closed form computed from scikit-learn's fitted counts).
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import CategoricalNB, GaussianNB

import sqlnb
from sqlnb import compiler, mixed

N_BIG = 2_500  # above INLINE_MAX_CATEGORIES: the joined lookup
N_CLASSES = 3


def _names(codes: np.ndarray, prefix: str) -> list[str]:
    return [f"{prefix}{c:05d}" for c in codes]


@pytest.fixture(scope="module")
def data() -> dict:
    assert compiler.INLINE_MAX_CATEGORIES < N_BIG
    rng = np.random.default_rng(7)
    n = 2 * N_BIG
    y = rng.integers(0, N_CLASSES, n)
    big = (rng.integers(0, N_BIG, n) + 11 * y) % N_BIG
    big[:N_BIG] = rng.permutation(N_BIG)  # every category seen: sklearn's ordinal codes
    small = (rng.integers(0, 4, n) + y) % 5
    small[:5] = np.arange(5)
    train = pd.DataFrame({"big": _names(big, "b"), "small": _names(small, "s"),
                          "y": [f"class {c}" for c in y]})
    test_codes = rng.integers(0, N_BIG, 300)
    test_small = rng.integers(0, 5, 300)
    test = pd.DataFrame({"big": _names(test_codes, "b"), "small": _names(test_small, "s")})
    cnb = CategoricalNB(alpha=1.0).fit(np.column_stack([big, small]), y)
    return {"train": train, "test": test, "cnb": cnb,
            "x_test": np.column_stack([test_codes, test_small]),
            "labels": [f"class {c}" for c in range(N_CLASSES)]}


@pytest.fixture(scope="module")
def fitted(data: dict):
    con = duckdb.connect()
    con.register("train_df", data["train"])
    con.execute("CREATE TABLE train AS SELECT * FROM train_df")
    con.register("test_df", data["test"])
    con.execute("CREATE TABLE test AS SELECT * FROM test_df")
    model = sqlnb.NaiveBayes("wide", con=con, family="categorical").fit("train", "y")
    return con, model


def _proba(frame: pd.DataFrame, labels: list[str], prefix: str = "proba_") -> np.ndarray:
    return frame[[f"{prefix}{label}" for label in labels]].to_numpy(dtype=float)


def test_the_wide_feature_is_joined_and_the_narrow_one_inline(fitted) -> None:
    _, model = fitted
    sql = model.score_sql('"test"', "proba", ["big", "small"])
    assert "__sqlnb_lookup_0" in sql and "__sqlnb_lookup_1" not in sql
    # the narrow one: its position computed once per row, read by every class (one
    # feature is below GATHER_MIN_FEATURES: no gathered list)
    assert "__sqlnb_position_0" in sql and "__sqlnb_gather" not in sql
    # the statement names no category of the wide feature: it joins them where the model
    # keeps them, and the scoring terms never read them (nor do the macros)
    assert "'b00017'" not in sql and '"wide_feature_params"' in sql
    terms = model.context.parameters()["compiled"][0]["terms"]
    assert [len(term["categories"]) for term in terms] == [0, 5]


def test_predict_matches_categorical_nb(fitted, data) -> None:
    _, model = fitted
    cnb, labels = data["cnb"], data["labels"]
    got = model.predict_proba("test").df()
    assert list(got["big"]) == list(data["test"]["big"])  # the input's order is kept
    np.testing.assert_allclose(_proba(got, labels), cnb.predict_proba(data["x_test"]),
                               rtol=0, atol=1e-9)
    joint = model.predict_joint_log_proba("test").df()
    np.testing.assert_allclose(_proba(joint, labels, "jll_"),
                               cnb.predict_joint_log_proba(data["x_test"]), rtol=1e-12, atol=1e-9)
    predicted = model.predict("test").df()["prediction"]
    expected = [labels[i] for i in cnb.predict(data["x_test"])]
    assert list(predicted) == expected


def test_macros_match_categorical_nb(fitted, data) -> None:
    con, _ = fitted
    cnb, labels = data["cnb"], data["labels"]
    rows = con.execute("SELECT wide_predict_proba(t), wide_predict(t) FROM test AS t").fetchall()
    proba = np.array([[row[0][label] for label in labels] for row in rows])
    np.testing.assert_allclose(proba, cnb.predict_proba(data["x_test"]), rtol=0, atol=1e-9)
    assert [row[1] for row in rows] == [labels[i] for i in cnb.predict(data["x_test"])]
    scored = con.execute("SELECT prediction FROM wide_score('test')").fetchall()
    assert [row[0] for row in scored] == [labels[i] for i in cnb.predict(data["x_test"])]


def test_to_sql_matches_categorical_nb(fitted, data) -> None:
    con, model = fitted
    cnb, labels = data["cnb"], data["labels"]
    sql = model.to_sql("test", output="predict_proba")
    assert "wide_" not in sql.split("*/")[-1].lower()  # reads no relation of the model
    got = con.sql(sql).df()
    assert list(got["big"]) == list(data["test"]["big"])
    np.testing.assert_allclose(_proba(got, labels), cnb.predict_proba(data["x_test"]),
                               rtol=0, atol=1e-9)
    assert list(got["prediction"]) == [labels[i] for i in cnb.predict(data["x_test"])]


def test_explain_reads_the_wide_feature_by_a_join(fitted, data) -> None:
    """explain's statement, its macro and to_sql(output="explain") name no category of the
    wide feature either, and each term is scikit-learn's log probability of the row's
    category in that class."""
    con, model = fitted
    cnb, labels = data["cnb"], data["labels"]
    sql = model.to_sql("test", output="explain")
    assert "__sqlnb_lookup_0" in sql and "'b00017'" not in sql
    expected = {(i, labels[k], name): cnb.feature_log_prob_[j][k, data["x_test"][i, j]]
                for i in range(len(data["x_test"])) for k in range(N_CLASSES)
                for j, name in enumerate(["big", "small"])}
    for rows in (model.explain("test").fetchall(), con.sql(sql).fetchall(),
                 con.execute("SELECT * FROM wide_explain('test')").fetchall()):
        got = {(row[0], row[1], row[2]): row[3] for row in rows}
        assert got.keys() == expected.keys()
        np.testing.assert_allclose([got[key] for key in expected], list(expected.values()),
                                   rtol=1e-12, atol=1e-12)


def _closed_form(cnb: CategoricalNB, codes: list[tuple[int | None, int | None]],
                 unseen: str) -> np.ndarray:
    """Joint log-likelihoods from scikit-learn's fitted counts: a missing value adds 0,
    an unseen category log(alpha) - log(total + alpha * n_categories) (or 0, ignored)."""
    jll = np.tile(cnb.class_log_prior_, (len(codes), 1))
    for i, row in enumerate(codes):
        for f, code in enumerate(row):
            if code is None:
                continue
            if code >= cnb.n_categories_[f]:
                if unseen == "smooth":
                    totals = cnb.category_count_[f].sum(axis=1)
                    jll[i] += np.log(cnb.alpha) - np.log(totals + cnb.alpha * cnb.n_categories_[f])
                continue
            jll[i] += cnb.feature_log_prob_[f][:, code]
    return jll


@pytest.mark.parametrize("unseen", ["smooth", "ignore"])
def test_unseen_and_missing_values(data, unseen: str) -> None:
    con = duckdb.connect()
    con.register("train_df", data["train"])
    model = sqlnb.NaiveBayes("odd", con=con, family="categorical",
                             unseen=unseen).fit("train_df", "y")
    rows = [("b00003", "s00001"), (None, "s00002"), ("never seen", "s00000"),
            ("b02499", None), ("never seen", "also never"), (None, None)]
    codes = [(None if b is None else (int(b[1:]) if b.startswith("b") else N_BIG),
              None if s is None else (int(s[1:]) if s.startswith("s0") else 5))
             for b, s in rows]
    odd = pd.DataFrame(rows, columns=["big", "small"])
    con.register("odd_rows", odd)
    expected = _closed_form(data["cnb"], codes, unseen)
    labels = data["labels"]
    got = _proba(model.predict_joint_log_proba("odd_rows").df(), labels, "jll_")
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)
    standalone = con.sql(model.to_sql("odd_rows", output="joint")).df()
    np.testing.assert_allclose(_proba(standalone, labels, "jll_"), expected, rtol=1e-12,
                               atol=1e-9)
    macro = con.execute("SELECT odd_joint_log_likelihood(t) FROM odd_rows AS t").fetchall()
    np.testing.assert_allclose(np.array([row[0] for row in macro]), expected, rtol=1e-12,
                               atol=1e-9)


def test_unseen_error_still_raises(data) -> None:
    con = duckdb.connect()
    con.register("train_df", data["train"])
    model = sqlnb.NaiveBayes("strict", con=con, family="categorical",
                             unseen="error").fit("train_df", "y")
    con.register("bad", pd.DataFrame({"big": ["never seen"], "small": ["s00001"]}))
    with pytest.raises(duckdb.Error, match="unseen category in feature big"):
        model.predict("bad").fetchall()
    with pytest.raises(duckdb.Error, match="unseen category in feature big"):
        con.sql(model.to_sql("bad")).fetchall()


def test_wide_mixed_model_matches_its_parts(data) -> None:
    """A mixed model whose Gaussian part is wide (scored by the arrays, a level of its own)
    and whose categorical part has a joined feature: GaussianNB + CategoricalNB."""
    rng = np.random.default_rng(3)
    train = data["train"]
    y = np.array([int(label.split()[1]) for label in train["y"]])
    numeric = rng.normal(y[:, None] * np.linspace(0.1, 1.0, 40), 1.0)
    frame = train.copy()
    for i in range(numeric.shape[1]):
        frame[f"x{i}"] = numeric[:, i]
    con = duckdb.connect()
    con.register("train_df", frame)
    model = sqlnb.NaiveBayes("both", con=con, family="auto").fit("train_df", "y")
    assert mixed.arrays_parts(model)  # the Gaussian part is scored by the arrays
    test = data["test"].copy()
    x_test = rng.normal(0.5, 1.0, (len(test), 40))
    for i in range(40):
        test[f"x{i}"] = x_test[:, i]
    con.register("test_df", test)
    gnb = GaussianNB().fit(numeric, y)
    cnb = data["cnb"]
    expected = (gnb.predict_joint_log_proba(x_test)
                + cnb.predict_joint_log_proba(data["x_test"]) - cnb.class_log_prior_)
    labels = data["labels"]
    got = _proba(model.predict_joint_log_proba("test_df").df(), labels, "jll_")
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
    proba = model.predict_proba("test_df").df()
    shifted = expected - expected.max(axis=1, keepdims=True)
    reference = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(_proba(proba, labels), reference, rtol=0, atol=1e-9)
    assert list(proba["big"]) == list(test["big"])
    standalone = con.sql(model.to_sql("test_df", output="proba")).df()
    np.testing.assert_allclose(_proba(standalone, labels), reference, rtol=0, atol=1e-9)


def test_many_narrow_features_are_gathered_and_match_categorical_nb() -> None:
    """More inline categorical features than GATHER_MIN_FEATURES: the row's positions form
    one list gathered per class (a statement that plans faster); CategoricalNB's answers
    through predict*, the macros and to_sql, with an unseen category (scored as
    ``unseen="ignore"`` leaves it: the term is 0) and a missing value (ignored) in a row."""
    rng = np.random.default_rng(11)
    width, n = compiler.GATHER_MIN_FEATURES + 4, 600
    y = rng.integers(0, N_CLASSES, n)
    codes = (rng.integers(0, 3, (n, width)) + y[:, None]) % 5
    codes[:5] = np.arange(5)[:, None]  # every category seen: sklearn's ordinal codes
    names = [f"c{i}" for i in range(width)]
    train = pd.DataFrame({name: _names(codes[:, i], "v") for i, name in enumerate(names)})
    train["y"] = y
    test_codes = rng.integers(0, 5, (40, width))
    test = pd.DataFrame({name: _names(test_codes[:, i], "v") for i, name in enumerate(names)})
    con = duckdb.connect()
    con.register("train_df", train)
    con.register("test_df", test)
    model = sqlnb.NaiveBayes("many", con=con, family="categorical",
                             unseen="ignore").fit("train_df", "y")
    assert "__sqlnb_gather" in model.score_sql('"test_df"', "proba", names)
    cnb = CategoricalNB(alpha=1.0).fit(codes, y)
    labels = [str(c) for c in range(N_CLASSES)]
    got = _proba(model.predict_proba("test_df").df(), labels)
    np.testing.assert_allclose(got, cnb.predict_proba(test_codes), rtol=0, atol=1e-9)
    macro = con.execute("SELECT many_predict_proba(t) FROM test_df AS t").fetchall()
    np.testing.assert_allclose([[row[0][label] for label in labels] for row in macro],
                               cnb.predict_proba(test_codes), rtol=0, atol=1e-9)
    standalone = con.sql(model.to_sql("test_df", output="proba")).df()
    np.testing.assert_allclose(_proba(standalone, labels), cnb.predict_proba(test_codes),
                               rtol=0, atol=1e-9)
    # one row with an unseen category and a missing value: those terms leave the sum
    odd = test.head(1).copy()
    odd.loc[0, "c0"], odd.loc[0, "c1"] = "never seen", None
    con.register("odd_df", odd)
    jll = _proba(model.predict_joint_log_proba("odd_df").df(), labels, "jll_")
    logs = cnb.feature_log_prob_
    expected = cnb.class_log_prior_ + sum(logs[i][:, test_codes[0, i]] for i in range(2, width))
    np.testing.assert_allclose(jll[0], expected, rtol=1e-12, atol=1e-9)
