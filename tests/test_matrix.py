"""The capability matrix: every kind of model × every operation, on DuckDB.

Kinds: one family over columns (gaussian, multinomial, bernoulli, complement, categorical,
poisson), ``family="auto"`` over mixed columns, per-group (``group_by``), per-group
``family="auto"``, text (``text=``) with each count family, and per-group text.

Each cell is checked against an independent reference computed in Python: scikit-learn's
estimator where it has the model (its ``predict_joint_log_proba``), a closed form in NumPy
for Poisson, for ``family="auto"`` the sum of the per-family references less the extra
log priors, per group one reference per group (the pooled one for a group the training
rows never saw), for text ``CountVectorizer`` + the estimator. ``partial_fit``, ``forget``
and ``merge`` are compared with that reference on the union (or the rest) of the rows;
``search`` with the reference's accuracy per held-out fold, ``top_features`` with the
scores the reference's fitted parameters give. Probabilities within 1e-9, predictions
identical; an export imported elsewhere scores bit for bit the same.

Cells that cannot work are listed in ``GAPS`` with the ``sqlnb.errors`` exception they
raise (and in docs/architecture.md's matrix with the reason).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln, logsumexp
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import accuracy_score, confusion_matrix, log_loss
from sklearn.naive_bayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
)

import sqlnb

TOL = {"rtol": 1e-9, "atol": 1e-9}
CLASSES = ["a", "b", "c"]
WORDS = ["money", "offer", "win", "cheap", "meeting", "noon", "lunch", "report", "match",
         "score", "team", "goal"]


# ---------------------------------------------------------------------- data
def make_data() -> pd.DataFrame:
    """120 labelled rows: each block of six has every (class, group); part B (a third of
    the blocks) is the second batch, ``fold`` the search's folds (every fold has every
    (class, group) too)."""
    rng = np.random.default_rng(7)
    n = 120
    i = np.arange(n)
    y = i % 3
    block = i // 6
    bodies = []
    for label in y:
        own = WORDS[4 * label:4 * label + 4]
        bodies.append(" ".join([*rng.choice(own, 3), *rng.choice(WORDS, 2)]))
    return pd.DataFrame({
        "id": i,
        "y": np.array(CLASSES)[y],
        "g": np.where((i % 6) // 3 == 0, "north", "south"),
        "part": np.where(block % 3 == 0, "B", "A"),
        "fold": (block // 3) % 3,
        "x1": rng.normal(y * 1.0, 1.0 + 0.3 * y),
        "x2": rng.normal(-0.5 * y, 1.0),
        "c1": rng.poisson(1.0 + y),
        "c2": rng.poisson(2.0, n),
        "c3": rng.poisson(3.0 - y),
        "k1": (rng.integers(0, 3, n) + y) % 4,
        "k2": rng.integers(0, 4, n),
        "colour": np.array(["red", "green", "blue"])[(rng.integers(0, 2, n) + y) % 3],
        "flag": rng.random(n) < 0.2 + 0.3 * y,
        "visits": rng.poisson(1.0 + y),
        "body": bodies,
    })


# ---------------------------------------------------------------------- references
Oracle = Callable[..., np.ndarray]  # (train, test, **params) -> joint log-likelihoods


def sklearn_oracle(estimator: Any, columns: list[str]) -> Oracle:
    def oracle(train: pd.DataFrame, test: pd.DataFrame, **params: Any) -> np.ndarray:
        nb = clone(estimator).set_params(**params).fit(train[columns].to_numpy(), train["y"])
        assert list(nb.classes_) == CLASSES
        return nb.predict_joint_log_proba(test[columns].to_numpy())
    return oracle


def log_prior(train: pd.DataFrame) -> np.ndarray:
    counts = train["y"].value_counts().reindex(CLASSES).to_numpy(dtype=float)
    return np.log(counts / counts.sum())


def poisson_oracle(columns: list[str]) -> Oracle:
    """rate = (sum + alpha) / (weight + alpha); log P(x|c) = x log rate - rate - log x!."""
    def oracle(train: pd.DataFrame, test: pd.DataFrame, alpha: float = 1.0) -> np.ndarray:
        X, Xt = train[columns].to_numpy(float), test[columns].to_numpy(float)
        jll = np.tile(log_prior(train), (len(test), 1))
        for k, label in enumerate(CLASSES):
            rows = X[train["y"].to_numpy() == label]
            rate = (rows.sum(axis=0) + alpha) / (len(rows) + alpha)
            jll[:, k] += (Xt * np.log(rate) - rate - gammaln(Xt + 1)).sum(axis=1)
        return jll
    return oracle


def auto_oracle(train: pd.DataFrame, test: pd.DataFrame, alpha: float = 1.0) -> np.ndarray:
    """Gaussian x1 + categorical colour + Bernoulli flag + Poisson visits, the log prior
    counted once."""
    codes = {c: i for i, c in enumerate(sorted(set(train["colour"])))}
    coded = [frame.assign(colour=frame["colour"].map(codes), flag=frame["flag"].astype(int))
             for frame in (train, test)]
    parts = [sklearn_oracle(GaussianNB(), ["x1"])(*coded),
             sklearn_oracle(CategoricalNB(alpha=alpha), ["colour"])(*coded),
             sklearn_oracle(BernoulliNB(alpha=alpha, binarize=0.0), ["flag"])(*coded),
             poisson_oracle(["visits"])(*coded, alpha=alpha)]
    return sum(parts) - (len(parts) - 1) * log_prior(train)


def text_oracle(estimator: Any) -> Oracle:
    def oracle(train: pd.DataFrame, test: pd.DataFrame, **params: Any) -> np.ndarray:
        vectorizer = CountVectorizer().fit(train["body"])
        nb = clone(estimator).set_params(**params).fit(vectorizer.transform(train["body"]),
                                                       train["y"])
        return nb.predict_joint_log_proba(vectorizer.transform(test["body"]))
    return oracle


def per_group(oracle: Oracle) -> Oracle:
    """One reference per group of the training rows; the pooled one for other groups."""
    def grouped(train: pd.DataFrame, test: pd.DataFrame, **params: Any) -> np.ndarray:
        jll = oracle(train, test, **params)
        for group in set(train["g"]):
            rows = (test["g"] == group).to_numpy()
            if rows.any():
                jll[rows] = oracle(train[train["g"] == group], test[rows], **params)
        return jll
    return grouped


# ---------------------------------------------------------------------- kinds
@dataclass(frozen=True)
class Kind:
    family: str
    fit: dict[str, Any]
    oracle: Oracle
    grid: dict[str, list[Any]]
    params: dict[str, Any] = field(default_factory=dict)


COUNTS = ["c1", "c2", "c3"]
AUTO = {"family": "auto", "params": {"families": {"visits": "poisson"}},
        "fit": {"features": ["x1", "colour", "flag", "visits"]}}
KINDS = {
    "gaussian": Kind("gaussian", {"features": ["x1", "x2"]},
                     sklearn_oracle(GaussianNB(), ["x1", "x2"]),
                     {"var_smoothing": [1e-9, 0.5]}),
    "multinomial": Kind("multinomial", {"features": COUNTS},
                        sklearn_oracle(MultinomialNB(), COUNTS), {"alpha": [0.5, 3.0]}),
    "bernoulli": Kind("bernoulli", {"features": COUNTS},
                      sklearn_oracle(BernoulliNB(binarize=0.0), COUNTS), {"alpha": [0.5, 3.0]}),
    "complement": Kind("complement", {"features": COUNTS},
                       sklearn_oracle(ComplementNB(), COUNTS), {"alpha": [0.5, 3.0]}),
    "categorical": Kind("categorical", {"features": ["k1", "k2"]},
                        sklearn_oracle(CategoricalNB(), ["k1", "k2"]), {"alpha": [0.5, 3.0]}),
    "poisson": Kind("poisson", {"features": COUNTS}, poisson_oracle(COUNTS),
                    {"alpha": [0.5, 3.0]}),
    "auto": Kind("auto", AUTO["fit"], auto_oracle, {"alpha": [0.5, 3.0]}, AUTO["params"]),
    "per-group": Kind("gaussian", {"features": ["x1", "x2"], "group_by": "g"},
                      per_group(sklearn_oracle(GaussianNB(), ["x1", "x2"])),
                      {"var_smoothing": [1e-9, 0.5]}),
    "per-group auto": Kind("auto", {**AUTO["fit"], "group_by": "g"}, per_group(auto_oracle),
                           {"alpha": [0.5, 3.0]}, AUTO["params"]),
    "text multinomial": Kind("multinomial", {"text": "body"}, text_oracle(MultinomialNB()),
                             {"alpha": [0.5, 3.0]}),
    "text bernoulli": Kind("bernoulli", {"text": "body"}, text_oracle(BernoulliNB()),
                           {"alpha": [0.5, 3.0]}),
    "text complement": Kind("complement", {"text": "body"}, text_oracle(ComplementNB()),
                            {"alpha": [0.5, 3.0]}),
    "per-group text": Kind("multinomial", {"text": "body", "group_by": "g"},
                           per_group(text_oracle(MultinomialNB())), {"alpha": [0.5, 3.0]}),
}
# Cells that cannot work: (kind, operation) -> the sqlnb.errors exception and its message
# (none left: every kind has every operation).
GAPS: dict[tuple[str, str], tuple[type[Exception], str]] = {}


def refused(kind: str, operation: str, call: Callable[[], Any]) -> bool:
    """Whether the cell is a gap: then ``call`` must raise its clear error. A cell whose
    model cannot be fitted at all is skipped (its fit is the refused cell)."""
    if (kind, operation) in GAPS:
        error, message = GAPS[kind, operation]
        with pytest.raises(error, match=message):
            call()
        return True
    needs_fit(kind)
    return False


def needs_fit(kind: str) -> None:
    """A cell of a kind that cannot be fitted is skipped: test_fit checks the refusal."""
    if (kind, "fit") in GAPS:
        pytest.skip(f"{kind} models cannot be fitted (test_fit checks the refusal)")


# ---------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    frame = make_data()
    a = frame[frame["part"] == "A"]
    for group in (None, "north", "south"):  # the first batch has every term of its rows
        rows = frame if group is None else frame[frame["g"] == group]
        first = a if group is None else a[a["g"] == group]
        assert set(" ".join(first["body"]).split()) == set(" ".join(rows["body"]).split())
    return frame


@pytest.fixture(scope="module")
def scored(data) -> pd.DataFrame:
    """The rows to score: every row, and six rows of a group no fit has seen."""
    unseen = data.head(6).assign(id=data["id"].head(6) + 1000, g="east")
    return pd.concat([data, unseen], ignore_index=True)


@pytest.fixture(scope="module")
def con(data, scored):
    connection = duckdb.connect()
    for name, frame in [("everything", data), ("a", data[data["part"] == "A"]),
                        ("b", data[data["part"] == "B"]), ("score", scored)]:
        connection.register("frame", frame)
        connection.execute(f"CREATE TABLE {name} AS SELECT * FROM frame ORDER BY id")
        connection.unregister("frame")
    yield connection
    connection.close()


_fitted: dict[str, sqlnb.NaiveBayes] = {}
_names = iter(range(10**6))


def new_model(con, kind: str) -> sqlnb.NaiveBayes:
    spec = KINDS[kind]
    return sqlnb.NaiveBayes(f"m{next(_names)}", con=con, family=spec.family, **spec.params)


@pytest.fixture
def fitted(con):
    """The model of a kind fitted on every row (one per kind for the module)."""
    def get(kind: str) -> sqlnb.NaiveBayes:
        if kind not in _fitted:
            _fitted[kind] = new_model(con, kind).fit("everything", "y", **KINDS[kind].fit)
        return _fitted[kind]
    return get


def outputs(model: sqlnb.NaiveBayes, output: str, table: str = "score") -> Any:
    """One output of the model over ``table``, rows in id order: the predictions, or an
    array with a column per class."""
    method = {"predict": model.predict, "proba": model.predict_proba,
              "log_proba": model.predict_log_proba,
              "joint": model.predict_joint_log_proba}[output]
    frame = method(table).df().sort_values("id")
    if output == "predict":
        return frame["prediction"].tolist()
    prefix = {"proba": "proba_", "log_proba": "log_proba_", "joint": "jll_"}[output]
    return frame[[f"{prefix}{c}" for c in model.classes_]].to_numpy()


def expected(kind: str, train: pd.DataFrame, test: pd.DataFrame, output: str) -> Any:
    jll = KINDS[kind].oracle(train, test)
    if output == "predict":
        return [CLASSES[i] for i in jll.argmax(axis=1)]
    if output == "joint":
        return jll
    log_proba = jll - logsumexp(jll, axis=1, keepdims=True)
    return log_proba if output == "log_proba" else np.exp(log_proba)


def assert_scores_as(model: sqlnb.NaiveBayes, kind: str, train: pd.DataFrame,
                     test: pd.DataFrame) -> None:
    """Predictions identical to the reference's, probabilities within 1e-9."""
    assert model.classes_ == CLASSES
    assert outputs(model, "predict") == expected(kind, train, test, "predict")
    np.testing.assert_allclose(outputs(model, "proba"), expected(kind, train, test, "proba"),
                               **TOL)


ALL = list(KINDS)


# ---------------------------------------------------------------------- fit and predict
@pytest.mark.parametrize("kind", ALL)
def test_fit(con, data, scored, kind):
    fit = KINDS[kind].fit
    if refused(kind, "fit", lambda: new_model(con, kind).fit("everything", "y", **fit)):
        return
    model = new_model(con, kind).fit("everything", "y", **fit)
    assert_scores_as(model, kind, data, scored)


@pytest.mark.parametrize("output", ["predict", "proba", "log_proba", "joint"])
@pytest.mark.parametrize("kind", ALL)
def test_predict_outputs(fitted, data, scored, kind, output):
    needs_fit(kind)
    got, want = outputs(fitted(kind), output), expected(kind, data, scored, output)
    if output == "predict":
        assert got == want
    else:
        np.testing.assert_allclose(got, want, **TOL)


# ---------------------------------------------------------------------- updates
@pytest.mark.parametrize("kind", ALL)
def test_partial_fit_equals_fit_on_the_union(con, data, scored, kind):
    model = new_model(con, kind)
    if refused(kind, "partial_fit", lambda: model.partial_fit("a", "y", **KINDS[kind].fit)):
        return
    model.partial_fit("a", "y", **KINDS[kind].fit)
    model.partial_fit("b", "y", **KINDS[kind].fit)
    assert_scores_as(model, kind, data, scored)


@pytest.mark.parametrize("kind", ALL)
def test_forget_equals_fit_on_the_rest(con, data, scored, kind):
    if refused(kind, "forget", lambda: new_model(con, kind).forget("b", "y", **KINDS[kind].fit)):
        return
    model = new_model(con, kind).fit("everything", "y", **KINDS[kind].fit)
    model.forget("b", "y", **KINDS[kind].fit)
    assert_scores_as(model, kind, data[data["part"] == "A"], scored)


@pytest.mark.parametrize("kind", ALL)
def test_merge_equals_fit_on_the_union(con, data, scored, kind):
    needs_fit(kind)
    first = new_model(con, kind).fit("a", "y", **KINDS[kind].fit)
    second = new_model(con, kind).fit("b", "y", **KINDS[kind].fit)
    if refused(kind, "merge", lambda: first.merge(second)):
        return
    merged = sqlnb.merge(con, [first, second.name], into=f"m{next(_names)}")
    assert_scores_as(merged, kind, data, scored)
    first.merge(second)  # into one of them
    assert_scores_as(first, kind, data, scored)


# ---------------------------------------------------------------------- plain SQL
@pytest.mark.parametrize("kind", ALL)
def test_sql_macros_score_as_predict(con, fitted, kind):
    model = fitted(kind)
    if refused(kind, "sql macros", model.create_macros):
        return
    rows = con.sql(f"SELECT {model.name}_predict(t), {model.name}_predict_proba(t), "
                   f"{model.name}_joint_log_likelihood(t) FROM score t ORDER BY id").fetchall()
    assert [r[0] for r in rows] == outputs(model, "predict")
    np.testing.assert_allclose([[r[1][c] for c in CLASSES] for r in rows],
                               outputs(model, "proba"), **TOL)
    np.testing.assert_allclose([r[2] for r in rows], outputs(model, "joint"), **TOL)


@pytest.mark.parametrize("kind", ALL)
def test_to_sql_scores_as_predict(fitted, kind):
    model = fitted(kind)
    if refused(kind, "to_sql", lambda: model.to_sql("score")):
        return
    fresh = duckdb.connect()  # no model there: every parameter is in the statement
    fresh.register("score", model.con.sql("SELECT * FROM score").df())
    for output, prefix in [("predict", None), ("proba", "proba_"), ("joint", "jll_")]:
        got = fresh.sql(model.to_sql("score", output=output)).df().sort_values("id")
        if prefix is None:
            assert got["prediction"].tolist() == outputs(model, "predict")
        else:
            np.testing.assert_allclose(got[[f"{prefix}{c}" for c in CLASSES]].to_numpy(),
                                       outputs(model, output), **TOL)
    fresh.close()


@pytest.mark.parametrize("kind", ALL)
def test_fit_sql_builds_the_model_fit_builds(con, fitted, kind):
    needs_fit(kind)
    spec = KINDS[kind]
    elsewhere = duckdb.connect()
    for table in ("everything", "score"):
        elsewhere.register("frame", con.sql(f"SELECT * FROM {table}").df())
        elsewhere.execute(f"CREATE TABLE {table} AS SELECT * FROM frame")
        elsewhere.unregister("frame")
    script = sqlnb.NaiveBayes("scripted", con=elsewhere, family=spec.family,
                              **spec.params).fit_sql("everything", "y", **spec.fit)
    elsewhere.execute(script)
    np.testing.assert_allclose(outputs(sqlnb.load(elsewhere, "scripted"), "proba"),
                               outputs(fitted(kind), "proba"), rtol=0, atol=1e-12)
    elsewhere.close()


# ---------------------------------------------------------------------- search
def search_reference(data: pd.DataFrame, kind: str) -> list[float]:
    """The reference's mean accuracy over the held-out folds, per value of the kind's
    grid in increasing order (``cv_results_`` sorted by the parameter)."""
    spec = KINDS[kind]
    (name, values), = spec.grid.items()
    reference = []
    for value in sorted(values):
        per_fold = []
        for fold in range(3):
            train, test = data[data["fold"] != fold], data[data["fold"] == fold]
            jll = spec.oracle(train, test, **{name: value})
            per_fold.append(accuracy_score(test["y"], np.array(CLASSES)[jll.argmax(axis=1)]))
        reference.append(float(np.mean(per_fold)))
    return reference


@pytest.mark.parametrize("kind", ALL)
def test_search_scores_each_candidate_as_its_fits_on_the_other_folds(con, data, kind):
    spec = KINDS[kind]
    (name, _values), = spec.grid.items()

    def search() -> Any:
        return new_model(con, kind).search("everything", "y", param_grid=spec.grid,
                                           cv="fold", refit=False, **spec.fit)

    if refused(kind, "search", search):
        return
    result = new_model(con, kind).search("everything", "y", param_grid=spec.grid, cv="fold",
                                         refit=False, **spec.fit)
    scores = result.cv_results_.df().sort_values(f"param_{name}")["mean_test_score"]
    np.testing.assert_allclose(scores.to_numpy(), search_reference(data, kind), **TOL)


# ---------------------------------------------------------------------- files and metrics
@pytest.mark.parametrize("kind", ALL)
def test_export_then_import_scores_bit_for_bit(con, fitted, kind, tmp_path):
    model = fitted(kind)
    if refused(kind, "export", lambda: model.export(tmp_path / "model")):
        return
    elsewhere = duckdb.connect()
    elsewhere.register("frame", con.sql("SELECT * FROM score").df())
    elsewhere.execute("CREATE TABLE score AS SELECT * FROM frame")
    imported = sqlnb.import_model(elsewhere, model.export(tmp_path / "model"))
    assert imported.classes_ == model.classes_
    assert np.array_equal(outputs(imported, "joint"), outputs(model, "joint"))
    assert outputs(imported, "predict") == outputs(model, "predict")
    elsewhere.close()


@pytest.mark.parametrize("kind", ALL)
def test_evaluate_equals_sklearn_metrics_on_the_reference(fitted, data, scored, kind):
    needs_fit(kind)
    metrics = fitted(kind).evaluate("score")
    predicted = expected(kind, data, scored, "predict")
    proba = expected(kind, data, scored, "proba")
    assert metrics["n"] == len(scored)
    assert metrics["labels"] == CLASSES
    assert metrics["accuracy"] == pytest.approx(accuracy_score(scored["y"], predicted),
                                                rel=1e-12)
    assert metrics["confusion_matrix"] == confusion_matrix(scored["y"], predicted).tolist()
    assert metrics["log_loss"] == pytest.approx(log_loss(scored["y"], proba, labels=CLASSES),
                                                rel=1e-9)


# ---------------------------------------------------------------------- beyond the matrix
def test_evaluate_of_a_long_input_model_is_refused_clearly(con):
    entries = pd.DataFrame({"document": [0, 0, 1, 2], "feature": ["w", "v", "w", "v"],
                            "value": [1, 2, 1, 3], "y": ["a", "a", "b", "b"]})
    model = sqlnb.NaiveBayes(f"m{next(_names)}", con=con, family="multinomial")
    model.fit_long(entries, "y")
    with pytest.raises(sqlnb.errors.UnsupportedError, match="long-input"):
        model.evaluate(entries)


# ---------------------------------------------------------------------- top_features
def contrasts(kind: str, train: pd.DataFrame) -> dict[tuple[str, str, Any], float]:
    """Each (class, feature, category)'s top_features score from the reference's fitted
    parameters: a coefficient's excess over its mean in the other classes (categorical:
    per category), for Gaussian features the mean KL divergence to the other classes."""
    spec = KINDS[kind]
    if spec.fit.get("text"):
        vectorizer = CountVectorizer().fit(train["body"])
        nb = {"multinomial": MultinomialNB(), "bernoulli": BernoulliNB(),
              "complement": ComplementNB()}[spec.family]
        nb.fit(vectorizer.transform(train["body"]), train["y"])
        return _excess(nb, list(vectorizer.get_feature_names_out()))
    if spec.family == "auto":
        codes = sorted(set(train["colour"]))
        coded = train.assign(colour=train["colour"].map({c: i for i, c in enumerate(codes)}))
        scores = {**_kl(GaussianNB().fit(coded[["x1"]], coded["y"]), ["x1"]),
                  **_excess(BernoulliNB(binarize=0.0).fit(coded[["flag"]].astype(int),
                                                          coded["y"]), ["flag"]),
                  **_poisson_excess(coded, ["visits"])}
        categorical = CategoricalNB().fit(coded[["colour"]], coded["y"])
        scores.update({(label, "colour", codes[code]): value for (label, _, code), value
                       in _excess(categorical, ["colour"], per_category=True).items()})
        return scores
    columns = spec.fit["features"]
    if spec.family == "poisson":
        return _poisson_excess(train, columns)
    nb = {"gaussian": GaussianNB(), "multinomial": MultinomialNB(),
          "bernoulli": BernoulliNB(binarize=0.0), "complement": ComplementNB(),
          "categorical": CategoricalNB()}[spec.family].fit(train[columns], train["y"])
    if spec.family == "gaussian":
        return _kl(nb, columns)
    return _excess(nb, columns, per_category=spec.family == "categorical")


def _excess_of(coef: np.ndarray) -> np.ndarray:
    """Per class, its coefficient less the mean of the other classes' (classes x ...)."""
    k = coef.shape[0]
    return coef - (coef.sum(axis=0) - coef) / (k - 1)


def _excess(nb: Any, names: list[str], per_category: bool = False) -> dict:
    if per_category:
        return {(label, name, code): value
                for name, log_prob in zip(names, nb.feature_log_prob_)
                for c, label in enumerate(nb.classes_)
                for code, value in enumerate(_excess_of(log_prob)[c])}
    coef = nb.feature_log_prob_
    if isinstance(nb, BernoulliNB):  # a present feature's gain over an absent one
        coef = coef - np.log1p(-np.exp(coef))
    excess = _excess_of(coef)
    return {(label, name, None): excess[c, f] for c, label in enumerate(nb.classes_)
            for f, name in enumerate(names)}


def _kl(nb: GaussianNB, names: list[str]) -> dict:
    theta, var = nb.theta_, nb.var_
    scores = {}
    for c, label in enumerate(nb.classes_):
        others = [o for o in range(len(nb.classes_)) if o != c]
        kl = [0.5 * (np.log(var[o] / var[c]) + (var[c] + (theta[c] - theta[o]) ** 2) / var[o]
                     - 1) for o in others]
        for f, name in enumerate(names):
            scores[label, name, None] = np.mean([row[f] for row in kl])
    return scores


def _poisson_excess(train: pd.DataFrame, names: list[str], alpha: float = 1.0) -> dict:
    rows = [train[train["y"] == label] for label in CLASSES]
    log_rate = np.array([np.log((r[names].to_numpy(float).sum(axis=0) + alpha)
                                / (len(r) + alpha)) for r in rows])
    excess = _excess_of(log_rate)
    return {(label, name, None): excess[c, f] for c, label in enumerate(CLASSES)
            for f, name in enumerate(names)}


@pytest.mark.parametrize("kind", ALL)
def test_top_features_score_as_the_reference_parameters(fitted, data, kind):
    """Every score (k covers every feature) equals the one from the reference's parameters
    (a per-group model's are its pooled model's), ranked by score per class."""
    needs_fit(kind)
    reference = contrasts(kind, data)
    rows = fitted(kind).top_features(k=1000).fetchall()
    got = {}
    for label, rank, feature, category, score in rows:
        if category is not None and KINDS[kind].family == "categorical":
            category = int(category)
        got[label, feature, category] = score
    assert set(got) == set(reference), set(got) ^ set(reference)
    np.testing.assert_allclose([got[key] for key in reference], list(reference.values()),
                               **TOL)
    for label in CLASSES:
        ranked = [r for r in rows if r[0] == label]
        assert [r[1] for r in ranked] == list(range(1, len(ranked) + 1))
        assert [r[4] for r in ranked] == sorted((r[4] for r in ranked), reverse=True)
