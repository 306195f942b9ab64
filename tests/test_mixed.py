"""Mixed-type models (family="auto"), Poisson, missing values and unseen categories.

Oracles: scikit-learn's naive Bayes models (combined by hand for mixed tables), and
NumPy/SciPy computations of the same formulas.
"""

from __future__ import annotations

import warnings

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import sparse
from scipy.stats import poisson
from sklearn.naive_bayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
)

import sqlnb
from sqlnb.errors import (
    InvalidDataError,
    InvalidParameterError,
    SkippedRowsWarning,
    UnknownColumnError,
)
from sqlnb.mixed import family_for_type

TOL = {"rtol": 1e-9, "atol": 1e-9}


# ---------------------------------------------------------------------- data
def make_data(n: int = 240, seed: int = 0) -> dict[str, np.ndarray]:
    """A mixed table: floats, integers, strings, booleans and counts, 3 classes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    letters = np.array(["a", "b", "c", "d"])
    return {
        "y": np.array(["low", "mid", "high"])[y],
        "f1": rng.normal(y * 1.5, 1.0 + y * 0.3),
        "f2": rng.normal(10.0 - y, 2.0),
        "i1": rng.integers(0, 50, n) + 20 * y,
        "s1": letters[(rng.integers(0, 3, n) + y) % 4],
        "s2": np.where(rng.random(n) < 0.3 + 0.2 * y, "u", "v"),
        "b1": rng.random(n) < 0.2 + 0.3 * y,
        "b2": rng.random(n) < 0.5,
        "k1": rng.poisson(1.0 + 2.0 * y),
        "w1": rng.poisson(3.0 + y, n),
        "w2": rng.poisson(2.0, n),
        "w3": rng.poisson(1.0 + 2 * (y == 1), n),
    }


def to_arrow(data: dict[str, np.ndarray], nulls: dict[str, np.ndarray] | None = None) -> pa.Table:
    """An Arrow table; ``nulls[col]`` is a boolean mask of the cells that are NULL."""
    nulls = nulls or {}
    return pa.table({k: pa.array(v, mask=nulls.get(k)) for k, v in data.items()})


def codes(values: np.ndarray) -> np.ndarray:
    """Ordinal codes 0..k-1 of values, in sorted order (what CategoricalNB needs)."""
    return np.unique(values, return_inverse=True)[1]


def fit(table, family="auto", target="y", name="m", con=None, **kwargs):
    con = con or duckdb.connect()
    fit_kwargs = {k: kwargs.pop(k) for k in ("features", "weight") if k in kwargs}
    model = sqlnb.NaiveBayes(name, con=con, family=family, **kwargs)
    model.fit(table, target, **fit_kwargs)
    return model


def scores(model, table, output="proba") -> np.ndarray:
    method = {"proba": model.predict_proba, "joint": model.predict_joint_log_proba,
              "log_proba": model.predict_log_proba}[output]
    prefix = {"proba": "proba_", "joint": "jll_", "log_proba": "log_proba_"}[output]
    result = method(table).fetchnumpy()
    return np.column_stack([result[f"{prefix}{c}"] for c in model.classes_])


def softmax(jll: np.ndarray) -> np.ndarray:
    e = np.exp(jll - jll.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------------- type rule
@pytest.mark.parametrize("sql_type, family", [
    ("DOUBLE", "gaussian"), ("FLOAT", "gaussian"), ("DECIMAL(10,2)", "gaussian"),
    ("BOOLEAN", "bernoulli"), ("VARCHAR", "categorical"), ("ENUM('a', 'b')", "categorical"),
    ("INTEGER", "gaussian"), ("BIGINT", "gaussian"), ("UTINYINT", "gaussian"),
    ("DATE", None), ("TIMESTAMP", None),
])
def test_type_rule(sql_type, family):
    assert family_for_type(sql_type) == family


def test_integer_rule_is_a_hyperparameter():
    assert family_for_type("BIGINT", "poisson") == "poisson"
    data = make_data()
    m = fit(to_arrow({k: data[k] for k in ("y", "f1", "i1", "s1", "b1")}), integers="poisson")
    assert m.families_ == {"f1": "gaussian", "i1": "poisson", "s1": "categorical",
                           "b1": "bernoulli"}
    assert m.meta["family"] == "auto"
    with pytest.raises(InvalidParameterError):
        sqlnb.NaiveBayes("m", family="auto", integers="multinomial")


# ---------------------------------------------------------------------- parity
def test_numeric_only_equals_gaussian_nb():
    data = make_data()
    cols = ["f1", "f2", "i1"]
    m = fit(to_arrow({k: data[k] for k in ["y"] + cols}))
    assert set(m.families_.values()) == {"gaussian"}
    X = np.column_stack([data[c] for c in cols]).astype(float)
    sk = GaussianNB().fit(X, data["y"])
    table = to_arrow({k: data[k] for k in cols})
    np.testing.assert_allclose(scores(m, table), sk.predict_proba(X), **TOL)
    np.testing.assert_allclose(scores(m, table, "joint"), sk.predict_joint_log_proba(X),
                               rtol=1e-10, atol=1e-8)
    assert list(m.predict(table).fetchnumpy()["prediction"]) == list(sk.predict(X))


def test_categorical_only_equals_categorical_nb():
    data = make_data()
    m = fit(to_arrow({k: data[k] for k in ("y", "s1", "s2")}), alpha=0.5)
    assert set(m.families_.values()) == {"categorical"}
    X = np.column_stack([codes(data["s1"]), codes(data["s2"])])
    sk = CategoricalNB(alpha=0.5).fit(X, data["y"])
    table = to_arrow({"s1": data["s1"], "s2": data["s2"]})
    np.testing.assert_allclose(scores(m, table), sk.predict_proba(X), **TOL)
    assert list(m.predict(table).fetchnumpy()["prediction"]) == list(sk.predict(X))


def test_integer_codes_as_categories_equal_categorical_nb():
    data = make_data()
    X = np.column_stack([codes(data["s1"]), codes(data["s2"])])
    table = to_arrow({"y": data["y"], "c1": X[:, 0], "c2": X[:, 1]})
    m = fit(table, integers="categorical")
    sk = CategoricalNB().fit(X, data["y"])
    np.testing.assert_allclose(scores(m, table), sk.predict_proba(X), **TOL)


def _combined_sklearn(data, weight=None):
    """GaussianNB, CategoricalNB and BernoulliNB on their columns, multiplied by hand."""
    Xg = np.column_stack([data["f1"], data["f2"]])
    Xc = np.column_stack([codes(data["s1"]), codes(data["s2"])])
    Xb = np.column_stack([data["b1"], data["b2"]]).astype(float)
    y = data["y"]
    g = GaussianNB().fit(Xg, y, sample_weight=weight)
    c = CategoricalNB().fit(Xc, y, sample_weight=weight)
    b = BernoulliNB().fit(Xb, y, sample_weight=weight)
    log_prior = np.log(g.class_prior_)
    jll = (g.predict_joint_log_proba(Xg) + c.predict_joint_log_proba(Xc)
           + b.predict_joint_log_proba(Xb) - 2 * log_prior)
    return jll, g.classes_


@pytest.mark.parametrize("weighted", [False, True])
def test_mixed_equals_product_of_sklearn_models(weighted):
    data = make_data()
    cols = ["f1", "f2", "s1", "s2", "b1", "b2"]
    weight = np.random.default_rng(1).uniform(0.5, 2.0, len(data["y"])) if weighted else None
    table = {k: data[k] for k in ["y"] + cols}
    if weighted:
        table["w"] = weight
    m = fit(to_arrow(table), weight="w" if weighted else None)
    assert m.families_ == {"f1": "gaussian", "f2": "gaussian", "s1": "categorical",
                           "s2": "categorical", "b1": "bernoulli", "b2": "bernoulli"}
    jll, classes = _combined_sklearn(data, weight)
    assert list(classes) == m.classes_
    features = to_arrow({k: data[k] for k in cols})
    np.testing.assert_allclose(scores(m, features, "joint"), jll, rtol=1e-10, atol=1e-8)
    np.testing.assert_allclose(scores(m, features), softmax(jll), **TOL)
    predicted = m.predict(features).fetchnumpy()["prediction"]
    assert list(predicted) == list(classes[jll.argmax(axis=1)])


def test_multinomial_block_with_gaussian():
    data = make_data()
    block = ["w1", "w2", "w3"]
    table = to_arrow({k: data[k] for k in ["y", "f1"] + block})
    m = fit(table, families={c: "multinomial" for c in block})
    assert m.families_["w2"] == "multinomial" and m.families_["f1"] == "gaussian"
    Xw = np.column_stack([data[c] for c in block])
    Xg = data["f1"][:, None]
    mn = MultinomialNB().fit(Xw, data["y"])
    g = GaussianNB().fit(Xg, data["y"])
    jll = (mn.predict_joint_log_proba(Xw) + g.predict_joint_log_proba(Xg)
           - np.log(g.class_prior_))
    np.testing.assert_allclose(scores(m, table, "joint"), jll, rtol=1e-10, atol=1e-8)
    # the block is normalised over its own columns only
    probs = m.con.sql("SELECT class, sum(exp(log_prob)) FROM m_multinomial_params "
                      "GROUP BY class").fetchall()
    np.testing.assert_allclose([p for _, p in probs], 1.0, rtol=1e-12)


# ---------------------------------------------------------------------- Poisson
def _poisson_oracle(X, y, alpha, weight=None):
    """Per-class rates (sum + alpha) / (weight + alpha) and the joint log-likelihood."""
    classes = np.unique(y)
    w = np.ones(len(y)) if weight is None else weight
    rates = np.array([((w[y == c][:, None] * X[y == c]).sum(0) + alpha)
                      / (w[y == c].sum() + alpha) for c in classes])
    prior = np.array([w[y == c].sum() for c in classes]) / w.sum()
    jll = np.log(prior) + np.stack(
        [poisson.logpmf(X, rates[k]).sum(axis=1) for k in range(len(classes))], axis=1)
    return rates, jll


@pytest.mark.parametrize("alpha, weighted", [(1.0, False), (0.3, True)])
def test_poisson_family_matches_scipy(alpha, weighted):
    data = make_data()
    cols = ["k1", "w1", "w2", "w3"]
    X = np.column_stack([data[c] for c in cols])
    weight = np.random.default_rng(2).uniform(0.2, 3.0, len(X)) if weighted else None
    table = {k: data[k] for k in ["y"] + cols}
    if weighted:
        table["w"] = weight
    m = fit(to_arrow(table), family="poisson", alpha=alpha, weight="w" if weighted else None)
    rates, jll = _poisson_oracle(X, data["y"], alpha, weight)
    got = m.con.sql("SELECT c.class_index, f.feature_index, p.rate FROM m_feature_params p "
                    "JOIN m_class_params c USING (class) JOIN m_features f USING (feature)"
                    ).fetchall()
    fitted = np.zeros_like(rates)
    for ci, fi, rate in got:
        fitted[ci, fi] = rate
    np.testing.assert_allclose(fitted, rates, rtol=1e-12)
    features = to_arrow({k: data[k] for k in cols})
    np.testing.assert_allclose(scores(m, features, "joint"), jll, rtol=1e-10, atol=1e-8)
    np.testing.assert_allclose(scores(m, features), softmax(jll), **TOL)


def test_poisson_in_a_mixed_model():
    data = make_data()
    table = to_arrow({k: data[k] for k in ("y", "f1", "k1")})
    m = fit(table, families={"k1": "poisson"})
    _, jll_p = _poisson_oracle(data["k1"][:, None], data["y"], 1.0)
    g = GaussianNB().fit(data["f1"][:, None], data["y"])
    jll = jll_p + g.predict_joint_log_proba(data["f1"][:, None]) - np.log(g.class_prior_)
    np.testing.assert_allclose(scores(m, table, "joint"), jll, rtol=1e-10, atol=1e-8)


@pytest.mark.parametrize("values, problem", [([1, -2, 3, 0], "negative"),
                                             ([1.0, 2.5, 3.0, 0.0], "whole numbers")])
def test_poisson_rejects_non_counts(values, problem):
    table = pa.table({"y": [0, 1, 0, 1], "k": values})
    with pytest.raises(InvalidDataError, match=problem):
        fit(table, family="poisson")
    with pytest.raises(InvalidDataError, match="'k'"):
        fit(table, families={"k": "poisson"})


# ---------------------------------------------------------------------- missing values
def _holes(data, cols, rate=0.15, seed=3):
    rng = np.random.default_rng(seed)
    return {c: rng.random(len(data["y"])) < rate for c in cols}


def test_missing_values_are_left_out_of_fit_statistics():
    data = make_data()
    cols = ["f1", "s1", "b1", "k1"]
    holes = _holes(data, cols)
    table = to_arrow({k: data[k] for k in ["y"] + cols}, holes)
    m = fit(table, families={"k1": "poisson"}, alpha=0.7)
    y = data["y"]
    classes = m.classes_
    con = m.con
    # Gaussian: per class mean and variance of the values that are there
    rows = con.sql("SELECT class, feature, theta, var - epsilon FROM m_gaussian_params")
    theta = {(c, f): (t, v) for c, f, t, v in rows.fetchall()}
    for c in classes:
        x = data["f1"][(y == c) & ~holes["f1"]]
        np.testing.assert_allclose(theta[(c, "f1")], (x.mean(), x.var()), rtol=1e-10)
    # Bernoulli: denominator is the number of rows where b1 is present
    logp = {(c, f): v for c, f, v in
                con.sql("SELECT class, feature, log_prob FROM m_bernoulli_params").fetchall()}
    for c in classes:
        x = data["b1"][(y == c) & ~holes["b1"]]
        np.testing.assert_allclose(logp[(c, "b1")], np.log((x.sum() + 0.7) / (len(x) + 1.4)),
                                   rtol=1e-12)
    # Categorical: the same as CategoricalNB on the rows where s1 is present
    present = ~holes["s1"]
    sk = CategoricalNB(alpha=0.7).fit(codes(data["s1"][present])[:, None], y[present])
    cat = con.sql("SELECT c.class_index, p.category, p.log_prob FROM m_categorical_params p "
                  "JOIN m_class_params c USING (class) WHERE category IS NOT NULL").fetchall()
    levels = list(np.unique(data["s1"]))
    for ci, category, log_prob in cat:
        assert log_prob == pytest.approx(sk.feature_log_prob_[0][ci, levels.index(category)],
                                         rel=1e-12)
    # Poisson: rates over the rows where k1 is present
    rates = {(c, f): v for c, f, v in
                 con.sql("SELECT class, feature, rate FROM m_poisson_params").fetchall()}
    for c in classes:
        x = data["k1"][(y == c) & ~holes["k1"]]
        np.testing.assert_allclose(rates[(c, "k1")], (x.sum() + 0.7) / (len(x) + 0.7),
                                   rtol=1e-12)
    # the class prior counts every labelled row
    n = dict(con.sql("SELECT class, n FROM m_class_stats").fetchall())
    assert n == {c: int((y == c).sum()) for c in classes}


def test_missing_values_at_predict_leave_the_feature_out():
    data = make_data()
    cols = ["f1", "f2", "s1", "s2", "b1", "b2"]
    m = fit(to_arrow({k: data[k] for k in ["y"] + cols}))
    jll, _ = _combined_sklearn(data)
    # the same model scored with f1, s1 and b2 missing in some rows
    holes = _holes(data, ["f1", "s1", "b2"], rate=0.3)
    features = to_arrow({k: data[k] for k in cols}, holes)
    got = scores(m, features, "joint")
    # oracle: subtract each missing feature's own log-likelihood term
    Xg = np.column_stack([data["f1"], data["f2"]])
    g = GaussianNB().fit(Xg, data["y"])
    term_f1 = -0.5 * (np.log(2 * np.pi * g.var_[:, 0])[None, :]
                      + (data["f1"][:, None] - g.theta_[:, 0][None, :]) ** 2 / g.var_[:, 0])
    Xc = np.column_stack([codes(data["s1"]), codes(data["s2"])])
    c = CategoricalNB().fit(Xc, data["y"])
    term_s1 = c.feature_log_prob_[0][:, Xc[:, 0]].T
    b = BernoulliNB().fit(np.column_stack([data["b1"], data["b2"]]).astype(float), data["y"])
    p = np.exp(b.feature_log_prob_[:, 1])
    term_b2 = np.where(data["b2"][:, None], np.log(p)[None, :], np.log(1 - p)[None, :])
    expected = (jll - holes["f1"][:, None] * term_f1 - holes["s1"][:, None] * term_s1
                - holes["b2"][:, None] * term_b2)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-8)


@pytest.mark.parametrize("family", ["gaussian", "bernoulli", "multinomial", "poisson"])
def test_missing_values_single_family(family):
    data = make_data()
    cols = ["w1", "w2", "w3"]
    holes = _holes(data, cols)
    table = to_arrow({k: data[k] for k in ["y"] + cols}, holes)
    m = fit(table, family=family)
    # a row with every feature missing scores as its class prior
    empty = to_arrow({c: data[c][:3] for c in cols}, {c: np.ones(3, bool) for c in cols})
    prior = np.array([r[0] for r in m.con.sql(
        "SELECT log_prior FROM m_class_params ORDER BY class_index").fetchall()])
    np.testing.assert_allclose(scores(m, empty, "joint"), np.tile(prior, (3, 1)), atol=1e-12)
    # and with no holes at predict, the model is the one fitted on each feature's values
    if family == "multinomial":
        X = np.column_stack([np.where(holes[c], 0, data[c]) for c in cols])
        sk = MultinomialNB().fit(X, data["y"])
        full = to_arrow({c: data[c] for c in cols})
        np.testing.assert_allclose(scores(m, full), sk.predict_proba(
            np.column_stack([data[c] for c in cols])), **TOL)


def test_nan_is_missing_in_float_columns(tmp_path):
    data = make_data()
    holes = _holes(data, ["f1"])
    with_null = to_arrow({"y": data["y"], "f1": data["f1"], "s1": data["s1"]}, holes)
    with_nan = to_arrow({"y": data["y"], "f1": np.where(holes["f1"], np.nan, data["f1"]),
                         "s1": data["s1"]})
    a, b = fit(with_null), fit(with_nan)
    np.testing.assert_allclose(scores(a, with_null), scores(b, with_nan), rtol=1e-12)
    # NaN read from Parquet too (DuckDB's Parquet statistics omit NaN)
    path = tmp_path / "nan.parquet"
    pq.write_table(with_nan, path)
    c = fit(str(path))
    np.testing.assert_allclose(scores(c, str(path)), scores(a, with_null), rtol=1e-12)
    assert not np.isnan(scores(b, with_nan)).any()
    # single-family models too, and a float column binarized by Bernoulli
    for family in ("gaussian", "bernoulli", "multinomial", "poisson"):
        nulls = {"y": data["y"], "f1": np.abs(np.round(data["f1"]))}
        nans = dict(nulls, f1=np.where(holes["f1"], np.nan, nulls["f1"]))
        g = fit(to_arrow(nulls, holes), family=family)
        h = fit(to_arrow(nans), family=family)
        np.testing.assert_allclose(scores(h, to_arrow(nans)), scores(g, to_arrow(nulls, holes)),
                                   rtol=1e-12)
    b1 = fit(with_nan, families={"f1": "bernoulli"}, binarize=0.5)
    np.testing.assert_allclose(scores(b1, with_nan),
                               scores(fit(with_null, families={"f1": "bernoulli"}, binarize=0.5),
                                      with_null), rtol=1e-12)


def test_missing_error_names_the_column():
    data = make_data()
    table = to_arrow({k: data[k] for k in ("y", "f1", "s1", "b1")},
                     {"s1": np.arange(len(data["y"])) == 5})
    with pytest.raises(InvalidDataError, match="'s1' has missing values"):
        fit(table, missing="error")
    for family, col in (("gaussian", "f1"), ("bernoulli", "b1")):
        t = to_arrow({"y": data["y"], col: data[col]}, {col: np.arange(len(data["y"])) == 5})
        with pytest.raises(InvalidDataError, match=f"'{col}' has missing values"):
            fit(t, family=family, missing="error")
    m = fit(to_arrow({k: data[k] for k in ("y", "f1", "s1")}), missing="error")
    holed = to_arrow({"f1": data["f1"][:4], "s1": data["s1"][:4]},
                     {"f1": np.array([0, 1, 0, 0], bool)})
    with pytest.raises(duckdb.Error, match="missing value .* in feature f1"):
        m.predict(holed).fetchall()
    with pytest.raises(InvalidParameterError):
        sqlnb.NaiveBayes("m", family="gaussian", missing="drop")


def gaussian_terms(values, present, y, weights, classes, eps):
    """Per class, a Gaussian feature's log-density of each row (0 where it is missing); a
    class without any present value takes the pooled weighted mean and variance."""
    pooled_mean = np.average(values[present], weights=weights[present])
    pooled_var = np.average((values[present] - pooled_mean) ** 2, weights=weights[present])
    columns = []
    for c in classes:
        rows = present & (y == c)
        if rows.any():
            theta = np.average(values[rows], weights=weights[rows])
            var = np.average((values[rows] - theta) ** 2, weights=weights[rows]) + eps
        else:
            theta, var = pooled_mean, pooled_var + eps
        term = -0.5 * np.log(2 * np.pi * var) - (values - theta) ** 2 / (2 * var)
        columns.append(np.where(present, term, 0.0))
    return np.column_stack(columns)


@pytest.mark.parametrize("weighted", [False, True])
def test_gaussian_feature_missing_in_a_whole_class_takes_the_pooled_estimate(weighted):
    data = make_data()
    y = data["y"]
    present = y != "high"  # f1 has no value at all in class 'high'
    rng = np.random.default_rng(3)
    w = rng.uniform(0.5, 2.0, y.size) if weighted else np.ones(y.size)
    columns = {"y": y, "f1": data["f1"], "f2": data["f2"], "s1": data["s1"], "w": w}
    table = to_arrow(columns, {"f1": ~present})
    m = fit(table, features=["f1", "f2", "s1"], weight="w" if weighted else None)
    classes = m.classes_
    eps = 1e-9 * max(np.var(data["f1"][present]), np.var(data["f2"]))
    cat = CategoricalNB(alpha=1.0).fit(codes(data["s1"])[:, None], y, sample_weight=w)
    expected = (cat.predict_joint_log_proba(codes(data["s1"])[:, None])
                + gaussian_terms(data["f1"], present, y, w, classes, eps)
                + gaussian_terms(data["f2"], np.ones(y.size, bool), y, w, classes, eps))
    np.testing.assert_allclose(scores(m, table, "joint"), expected, **TOL)
    np.testing.assert_allclose(scores(m, table), softmax(expected), **TOL)
    # the same rule for a single-family Gaussian model
    g = fit(table, family="gaussian", features=["f1", "f2"], weight="w" if weighted else None)
    gauss = (np.log(cat.class_count_ / cat.class_count_.sum())
             + gaussian_terms(data["f1"], present, y, w, classes, eps)
             + gaussian_terms(data["f2"], np.ones(y.size, bool), y, w, classes, eps))
    np.testing.assert_allclose(scores(g, table, "joint"), gauss, **TOL)


def test_constant_gaussian_column_keeps_the_other_evidence():
    data = make_data()
    n = data["y"].size
    table = to_arrow({"y": data["y"], "c": np.full(n, 2.5), "s1": data["s1"]})
    m = fit(table)
    oracle = CategoricalNB(alpha=1.0).fit(codes(data["s1"])[:, None], data["y"])
    proba = scores(m, table)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba, oracle.predict_proba(codes(data["s1"])[:, None]), **TOL)
    predicted = m.predict(table).fetchnumpy()["prediction"]
    assert list(predicted) == list(oracle.predict(codes(data["s1"])[:, None]))
    # constant columns only: every class keeps its prior
    constant = to_arrow({"y": data["y"], "c": np.full(n, 2.5), "d": np.zeros(n)})
    alone = fit(constant)
    priors = np.array([np.mean(data["y"] == c) for c in alone.classes_])
    np.testing.assert_allclose(scores(alone, constant), np.tile(priors, (n, 1)), **TOL)


def test_var_smoothing_zero_refuses_a_class_without_spread():
    table = pa.table({"y": [0, 0, 1, 1], "x": [1.0, 1.0, 2.0, 3.0]})
    with pytest.raises(InvalidDataError, match="'x' has no spread in class 0 .*var_smoothing"):
        fit(table, family="gaussian", var_smoothing=0.0)


@pytest.mark.parametrize("family", ["auto", "gaussian"])
@pytest.mark.parametrize("value, message", [
    (float("inf"), "'x' has 1 infinite value"),
    (-float("inf"), "'x' has 1 infinite value"),
    (1e200, "'x' has values too large to square"),
])
def test_infinite_and_huge_values_are_named(family, value, message):
    table = pa.table({"y": [0, 0, 1, 1, 1], "x": [1.0, value, 2.0, 3.0, float("nan")],
                      "s": ["a", "b", "a", "b", "a"]})
    features = None if family == "auto" else ["x"]
    with pytest.raises(InvalidDataError, match=message):
        fit(table, family=family, features=features)
    finite = table.set_column(1, "x", pa.array([1.0, 2.5, 2.0, 3.0, float("nan")]))
    assert fit(finite, family=family, features=features).classes_ == [0, 1]


def test_complex_dataframe_column_is_refused():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"y": [0, 0, 1, 1], "z": np.array([1, 2, 3, 4], dtype=complex)})
    with pytest.raises(InvalidDataError, match=r"\['z'\] hold complex numbers"):
        fit(frame)


def test_null_target_rows_are_skipped_and_reported():
    data = make_data()
    cols = ["f1", "s1", "b1"]
    y_holes = np.arange(len(data["y"])) % 9 == 0
    table = to_arrow({k: data[k] for k in ["y"] + cols}, {"y": y_holes})
    with pytest.warns(SkippedRowsWarning, match=f"{y_holes.sum()} row"):
        m = fit(table)
    assert m.n_skipped_ == y_holes.sum()
    kept = to_arrow({k: data[k][~y_holes] for k in ["y"] + cols})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ref = fit(kept)
    assert ref.n_skipped_ == 0
    features = to_arrow({k: data[k] for k in cols})
    np.testing.assert_allclose(scores(m, features), scores(ref, features), rtol=1e-12)


# ---------------------------------------------------------------------- unseen categories
def test_unseen_categories():
    data = make_data()
    table = to_arrow({k: data[k] for k in ("y", "f1", "s1")})
    new = to_arrow({"f1": data["f1"][:3], "s1": np.array(["zzz", "a", "zzz"])})
    smooth = fit(table, alpha=0.5)
    ignore = fit(table, alpha=0.5, unseen="ignore")
    error = fit(table, alpha=0.5, unseen="error")
    without = fit(to_arrow({k: data[k] for k in ("y", "f1")}), alpha=0.5)
    # smooth: log(alpha) - log(total_cf + alpha * n_categories_f)
    y = data["y"]
    n_cat = len(np.unique(data["s1"]))
    unseen = np.array([np.log(0.5) - np.log((y == c).sum() + 0.5 * n_cat) for c in smooth.classes_])
    base = scores(without, new, "joint")
    got = scores(smooth, new, "joint")
    np.testing.assert_allclose(got[[0, 2]], base[[0, 2]] + unseen, rtol=1e-12)
    # ignore: the unseen value adds nothing
    np.testing.assert_allclose(scores(ignore, new, "joint")[[0, 2]], base[[0, 2]], rtol=1e-12)
    np.testing.assert_allclose(scores(ignore, new, "joint")[1], got[1], rtol=1e-12)
    with pytest.raises(duckdb.Error, match="unseen category in feature s1"):
        error.predict(new).fetchall()
    # single-family categorical keeps the same three choices
    cat = fit(to_arrow({"y": y, "s1": data["s1"]}), family="categorical", unseen="ignore")
    assert scores(cat, to_arrow({"s1": np.array(["zzz"])}), "joint").shape == (1, 3)


# ---------------------------------------------------------------------- overrides & errors
def test_overrides_and_their_errors():
    data = make_data()
    table = to_arrow({k: data[k] for k in ("y", "f1", "s1", "i1")})
    m = fit(table, families={"i1": "categorical", "f1": "gaussian"})
    assert m.families_["i1"] == "categorical"
    with pytest.raises(InvalidDataError, match="'s1'"):
        fit(table, families={"s1": "poisson"})
    with pytest.raises(UnknownColumnError, match="nope"):
        fit(table, families={"nope": "poisson"})
    with pytest.raises(InvalidParameterError, match="complement"):
        sqlnb.NaiveBayes("m", family="auto", families={"i1": "complement"})
    dated = pa.table({"y": [0, 1], "d": pa.array([0, 1], pa.date32())})
    with pytest.raises(InvalidDataError, match="families="):
        fit(dated)


def test_metadata_load_and_drop(tmp_path):
    data = make_data()
    path = tmp_path / "mixed.parquet"
    pq.write_table(to_arrow({k: data[k] for k in ("y", "f1", "s1", "b1", "k1")}), path)
    con = duckdb.connect(str(tmp_path / "models.duckdb"))
    m = fit(str(path), con=con, families={"k1": "poisson"})
    before = scores(m, str(path))
    loaded = sqlnb.load(con, "m")
    assert loaded.families_ == {"f1": "gaussian", "s1": "categorical", "b1": "bernoulli",
                                "k1": "poisson"}
    np.testing.assert_allclose(scores(loaded, str(path)), before, rtol=1e-15)
    # refitting replaces the parts; dropping removes every relation of the model
    fit(str(path), con=con, features=["f1"])
    assert "m_poisson_stats" not in {r[0] for r in con.sql("SHOW TABLES").fetchall()}
    loaded = sqlnb.load(con, "m")
    loaded.drop()
    assert not [r for r in con.sql("SHOW TABLES").fetchall() if r[0].startswith("m_")]


# ---------------------------------------------------------------------- single families unchanged
def test_single_family_parity_is_unchanged():
    """The missing-value edits keep the single-family models equal to scikit-learn."""
    from sqlnb.sklearn import BernoulliNB as SBernoulli
    from sqlnb.sklearn import CategoricalNB as SCategorical
    from sqlnb.sklearn import ComplementNB as SComplement
    from sqlnb.sklearn import GaussianNB as SGaussian
    from sqlnb.sklearn import MultinomialNB as SMultinomial

    data = make_data()
    y = data["y"]
    Xw = np.column_stack([data[c] for c in ("w1", "w2", "w3")])
    Xc = np.column_stack([codes(data["s1"]), codes(data["s2"])])
    Xg = np.column_stack([data["f1"], data["f2"]])
    weight = np.random.default_rng(5).uniform(0.5, 2, len(y))
    Xs = sparse.csr_matrix(Xw)
    for ours, theirs, X in ((SGaussian, GaussianNB, Xg), (SMultinomial, MultinomialNB, Xw),
                            (SBernoulli, BernoulliNB, Xw), (SCategorical, CategoricalNB, Xc),
                            (SComplement, ComplementNB, Xw), (SBernoulli, BernoulliNB, Xs),
                            (SMultinomial, MultinomialNB, Xs)):
        for w in (None, weight):
            a = ours().fit(X, y, sample_weight=w)
            b = theirs().fit(X, y, sample_weight=w)
            np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), **TOL)
            assert list(a.predict(X)) == list(b.predict(X))


def test_weighted_fit_with_missing_values():
    data = make_data()
    cols = ["f1", "b1", "k1"]
    holes = _holes(data, cols, rate=0.2)
    w = np.random.default_rng(9).uniform(0.1, 3.0, len(data["y"]))
    table = to_arrow({**{k: data[k] for k in ["y"] + cols}, "w": w}, holes)
    m = fit(table, families={"k1": "poisson"}, weight="w")
    y, con = data["y"], m.con
    for c in m.classes_:
        keep = (y == c)
        f = keep & ~holes["f1"]
        theta, var = con.execute("SELECT theta, var - epsilon FROM m_gaussian_params "
                             "WHERE class = $c", {"c": c}).fetchone()
        mean = np.average(data["f1"][f], weights=w[f])
        assert theta == pytest.approx(mean, rel=1e-10)
        assert var == pytest.approx(np.average((data["f1"][f] - mean) ** 2, weights=w[f]),
                                    rel=1e-9)
        b = keep & ~holes["b1"]
        (log_prob,) = con.execute("SELECT log_prob FROM m_bernoulli_params WHERE class = $c",
                              {"c": c}).fetchone()
        assert log_prob == pytest.approx(
            np.log((w[b] * data["b1"][b]).sum() + 1) - np.log(w[b].sum() + 2), rel=1e-12)
        k = keep & ~holes["k1"]
        (rate,) = con.execute("SELECT rate FROM m_poisson_params WHERE class = $c",
                          {"c": c}).fetchone()
        assert rate == pytest.approx(((w[k] * data["k1"][k]).sum() + 1) / (w[k].sum() + 1),
                                     rel=1e-12)


def test_enum_columns_and_refit_with_other_types():
    con = duckdb.connect()
    con.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
    con.execute("CREATE TABLE t AS SELECT range % 2 AS y, "
                "CAST(['sad', 'ok', 'happy'][range % 3 + 1] AS mood) AS m, "
                "CAST(range AS DOUBLE) AS x FROM range(30)")
    model = fit("t", con=con)
    assert model.families_ == {"m": "categorical", "x": "gaussian"}
    # the same model object refitted on a table where x is text
    con.execute("CREATE TABLE u AS SELECT y, m, CAST(x % 4 AS VARCHAR) AS x FROM t")
    model.fit("u", "y")
    assert model.families_ == {"m": "categorical", "x": "categorical"}
    assert len(model.predict("u").fetchall()) == 30


def test_missing_error_at_predict_also_catches_nan():
    data = make_data()
    m = fit(to_arrow({k: data[k] for k in ("y", "f1", "k1")}), missing="error",
            families={"k1": "poisson"})
    f1 = data["f1"][:4].copy()
    f1[2] = np.nan
    with pytest.raises(duckdb.Error, match="in feature f1"):
        m.predict(to_arrow({"f1": f1, "k1": data["k1"][:4]})).fetchall()


def test_class_prior_of_a_mixed_model():
    data = make_data()
    table = to_arrow({k: data[k] for k in ("y", "f1", "s1")})
    m = fit(table, class_prior=[0.2, 0.5, 0.3])
    got = [r[0] for r in m.con.sql("SELECT log_prior FROM m_class_params ORDER BY class_index")
           .fetchall()]
    np.testing.assert_allclose(got, np.log([0.2, 0.5, 0.3]), rtol=1e-15)
    uniform = fit(table, fit_prior=False)
    got = [r[0] for r in uniform.con.sql("SELECT log_prior FROM m_class_params").fetchall()]
    np.testing.assert_allclose(got, np.log(1 / 3), rtol=1e-15)


def test_example_runs(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "examples" / "mixed_table.py"
    spec = importlib.util.spec_from_file_location("mixed_table_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    example.main(n_train=2_000)
    out = capsys.readouterr().out
    assert "support_calls   poisson" in out and "autopay         bernoulli" in out
    assert "Predicted labels" in out


def test_mixed_models_get_macros_and_standalone_sql_that_agree():
    import duckdb

    con = duckdb.connect()
    con.execute("""CREATE TABLE shop AS SELECT i % 2 AS bought, (i % 7) * 1.5 AS spend,
                   CAST(i % 3 AS VARCHAR) AS plan, i % 5 = 0 AS member, i % 4 AS visits
                   FROM range(200) r(i)""")
    model = sqlnb.NaiveBayes("shop_nb", con=con, family="auto",
                             families={"visits": "poisson"}).fit("shop", "bought")
    expected = model.predict_proba("shop").df()
    labels = model.predict("shop").df()["prediction"].tolist()
    assert [r[0] for r in con.sql("SELECT shop_nb_predict(t) FROM shop t").fetchall()] == labels
    proba = con.sql("SELECT shop_nb_predict_proba(t) AS p FROM shop t").fetchall()
    np.testing.assert_allclose([[r[0]["0"], r[0]["1"]] for r in proba],
                               expected[["proba_0", "proba_1"]].to_numpy(), atol=1e-12)
    fresh = duckdb.connect()
    fresh.register("shop_df", con.sql("SELECT * FROM shop").df())
    standalone = fresh.execute(model.to_sql(source="shop_df")).df()
    assert standalone["prediction"].tolist() == labels


def test_a_class_that_weighs_nothing_gets_probability_zero_not_nan(con):
    # every row of class 0 weighs 0: its prior is 0, so its log prior is -inf in each
    # part's class constant; the parts' priors must not cancel to -inf - -inf = NaN
    con.execute("CREATE TABLE t AS SELECT (i % 3)::VARCHAR AS y, i * 1.5 + i % 3 AS x, "
                "(i * 7) % 5 AS c, CASE WHEN i % 3 = 0 THEN 0.0 ELSE 1.0 END AS w "
                "FROM range(30) r(i)")
    model = sqlnb.NaiveBayes("m", con=con, family="auto").fit("t", "y", weight="w")
    rows = model.predict_proba(con.sql("SELECT 1.5::DOUBLE AS x, 2::BIGINT AS c, 1.0 AS w"))
    probabilities = rows.fetchall()[0][-3:]
    assert probabilities[0] == 0.0
    assert sum(probabilities) == pytest.approx(1.0, abs=1e-12)
