"""model.explain against a NumPy reference built from scikit-learn's fitted attributes.

Each feature's log-likelihood term is compared with the reference's term, and the identity
log_prior + sum over features == predict_joint_log_proba is checked for every row and
class, weighted and not; ``top=k`` against the same reference's ranking.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln
from sklearn import naive_bayes as reference

import sqlnb
from sqlnb.errors import InvalidParameterError, UnknownColumnError

N_ROWS, N_FEATURES = 60, 4
NAMES = [f"f{i}" for i in range(N_FEATURES)]


def family_data(family, seed=0):
    """Rows for ``family``: (features, labels 0..2, weights)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, N_ROWS)
    if family == "gaussian":
        X = rng.normal(size=(N_ROWS, N_FEATURES)) + y[:, None]
    elif family == "bernoulli":
        X = rng.normal(size=(N_ROWS, N_FEATURES)) + 0.5 * y[:, None]
    elif family == "categorical":
        X = (rng.integers(0, 3, size=(N_ROWS, N_FEATURES)) + y[:, None]) % 4
        X[:4] = np.arange(4)[:, None]  # every code in every column
    else:
        X = rng.poisson(1.0 + y[:, None], size=(N_ROWS, N_FEATURES)).astype(np.float64)
    return X, y, rng.uniform(0.5, 2.0, N_ROWS)


def frame(X, y=None, w=None):
    df = pd.DataFrame(X, columns=NAMES)
    if y is not None:
        df["y"] = y
    if w is not None:
        df["w"] = w
    return df


def reference_terms(family, X, y, w):
    """Per row, class and feature the term of the joint log-likelihood, and per class the
    rest (the log prior), from scikit-learn's fitted attributes (Poisson: closed form)."""
    kwargs = {"sample_weight": w}
    if family == "gaussian":
        nb = reference.GaussianNB().fit(X, y, **kwargs)
        terms = (-0.5 * np.log(2 * np.pi * nb.var_)[None, :, :]
                 - (X[:, None, :] - nb.theta_[None]) ** 2 / (2 * nb.var_[None]))
        return terms, np.log(nb.class_prior_)
    if family in ("multinomial", "complement"):
        nb = getattr(reference, f"{family.title()}NB")().fit(X, y, **kwargs)
        terms = X[:, None, :] * nb.feature_log_prob_[None]
        # complement adds no prior with several classes (scikit-learn's jll)
        prior = nb.class_log_prior_ if family == "multinomial" else np.zeros(len(nb.classes_))
        return terms, prior
    if family == "bernoulli":
        nb = reference.BernoulliNB().fit(X, y, **kwargs)
        x = (X > 0).astype(np.float64)[:, None, :]
        p = nb.feature_log_prob_[None]
        terms = x * p + (1 - x) * np.log1p(-np.exp(p))
        return terms, nb.class_log_prior_
    if family == "categorical":
        nb = reference.CategoricalNB().fit(X, y, **kwargs)
        terms = np.stack([nb.feature_log_prob_[f][:, X[:, f].astype(int)].T
                          for f in range(X.shape[1])], axis=2)
        return terms, nb.class_log_prior_
    # Poisson: rate = (weighted sum + alpha) / (weight + alpha), alpha = 1
    classes = np.unique(y)
    weights = np.array([w[y == c].sum() for c in classes])
    rate = np.array([(w[y == c] @ X[y == c] + 1.0) / (w[y == c].sum() + 1.0) for c in classes])
    terms = X[:, None, :] * np.log(rate)[None] - rate[None] - gammaln(X + 1)[:, None, :]
    return terms, np.log(weights / weights.sum())


def explained(model, source):
    """The explain relation as an array (row, class, feature) and the log prior per class."""
    rows = model.explain(source).order("row_number, class").fetchall()
    n_classes = len(model.classes_)
    terms = np.empty((len(rows) // (n_classes * N_FEATURES), n_classes, N_FEATURES))
    priors = {}
    for row, label, feature, log_likelihood, log_prior in rows:
        terms[row, model.classes_.index(label), NAMES.index(feature)] = log_likelihood
        priors[label] = log_prior
    return terms, np.array([priors[c] for c in model.classes_])


FAMILIES = ["gaussian", "multinomial", "complement", "bernoulli", "categorical", "poisson"]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("family", FAMILIES)
def test_each_feature_term_and_the_identity(family, weighted):
    X, y, w = family_data(family)
    if not weighted:
        w = np.ones(N_ROWS)
    con = duckdb.connect()
    train = frame(X, y, w if weighted else None)
    model = sqlnb.NaiveBayes("m", con=con, family=family).fit(
        train, "y", weight="w" if weighted else None)
    terms, priors = explained(model, frame(X))
    expected_terms, expected_priors = reference_terms(family, X, y, w)
    np.testing.assert_allclose(terms, expected_terms, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(priors, expected_priors, rtol=1e-9, atol=1e-9)
    joint = np.array(model.predict_joint_log_proba(frame(X)).fetchall())[:, N_FEATURES:]
    np.testing.assert_allclose(priors[None] + terms.sum(axis=2), joint, rtol=0, atol=1e-9)


def reference_top(terms, priors, k):
    """Per row: (feature index, contribution) of the k features with the largest term in
    the predicted class less the term in the runner-up (ties to the first feature)."""
    jll = priors[None] + terms.sum(axis=2)
    result = []
    for r in range(terms.shape[0]):
        order = sorted(range(jll.shape[1]), key=lambda c: (-jll[r, c], c))
        first, second = order[0], order[1]
        diff = terms[r, first] - terms[r, second]
        best = sorted(range(N_FEATURES), key=lambda f: (-diff[f], f))[:k]
        result.append([(f, diff[f], first, second) for f in best])
    return result


@pytest.mark.parametrize("family", ["gaussian", "categorical", "multinomial"])
def test_top_k_agrees_with_numpy(family):
    X, y, _ = family_data(family, seed=1)
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family=family).fit(frame(X, y), "y")
    expected = reference_top(*reference_terms(family, X, y, np.ones(N_ROWS)), k=2)
    rows = model.explain(frame(X), top=2).fetchall()
    assert [(r[0], r[1]) for r in rows] == [(i, rank) for i in range(N_ROWS) for rank in (1, 2)]
    for row, rank, feature, value, contribution, prediction, runner_up in rows:
        f, diff, first, second = expected[row][rank - 1]
        assert feature == NAMES[f]
        assert float(value) == X[row, f]
        assert contribution == pytest.approx(diff, abs=1e-9)
        assert (prediction, runner_up) == (model.classes_[first], model.classes_[second])
    predictions = [p for (p,) in model.predict(frame(X)).select("prediction").fetchall()]
    assert [r[5] for r in rows if r[1] == 1] == predictions


@pytest.mark.parametrize("family", ["gaussian", "bernoulli", "categorical", "poisson"])
def test_a_missing_value_contributes_nothing(family):
    """missing='ignore': a NULL (or NaN) leaves the feature out of the row's likelihood,
    its share of the class constant included, as predict does."""
    X, y, _ = family_data(family)
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family=family).fit(frame(X, y), "y")
    test = frame(X[:3]).astype("float64")
    test.loc[0, "f1"] = np.nan
    test.loc[1, "f2"] = None
    if family == "categorical":  # categorical reads NaN as NULL only in float columns
        test = test.astype({"f0": "Int64", "f3": "Int64"})
    terms, priors = explained(model, test)
    assert terms[0, :, 1] == pytest.approx(0.0, abs=1e-12)
    assert terms[1, :, 2] == pytest.approx(0.0, abs=1e-12)
    joint = np.array([row[N_FEATURES:] for row in model.predict_joint_log_proba(test).fetchall()])
    np.testing.assert_allclose(priors[None] + terms.sum(axis=2), joint, rtol=0, atol=1e-9)


def test_mixed_model_identity():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, N_ROWS)
    df = pd.DataFrame({"height": rng.normal(size=N_ROWS) + y,
                       "colour": np.where(rng.random(N_ROWS) < 0.3 + 0.4 * y, "red", "blue"),
                       "visits": rng.poisson(1 + y).astype(np.int64),
                       "member": rng.random(N_ROWS) < 0.5, "y": y})
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family="auto").fit(df, "y")
    test = df.drop(columns="y")
    rows = model.explain(test).fetchall()
    assert {r[2] for r in rows} == {"height", "colour", "visits", "member"}
    sums = {}
    for row, label, _, log_likelihood, log_prior in rows:
        sums[row, label] = sums.get((row, label), log_prior) + log_likelihood
    joint = model.predict_joint_log_proba(test).fetchall()
    for row, values in enumerate(joint):
        for i, label in enumerate(model.classes_):
            assert sums[row, label] == pytest.approx(values[4 + i], abs=1e-9)


def test_refusals_say_what_to_do():
    X, y, _ = family_data("gaussian")
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con).fit(frame(X, y), "y")
    with pytest.raises(InvalidParameterError, match="top"):
        model.explain(frame(X), top=0)
    with pytest.raises(UnknownColumnError, match="f3"):
        model.explain(frame(X).drop(columns="f3"))
    grouped = frame(X, y).assign(g=np.arange(N_ROWS) % 2)
    per_group = sqlnb.NaiveBayes("pg", con=con).fit(grouped, "y", group_by="g")
    with pytest.raises(UnknownColumnError, match="'g'"):
        per_group.explain(frame(X))
    docs = pd.DataFrame({"body": ["red blue", "blue green", "red green", "green green"],
                         "label": [0, 1, 0, 1]})
    text = sqlnb.NaiveBayes("tx", con=con, family="multinomial").fit(docs, "label", text="body")
    with pytest.raises(UnknownColumnError, match="body"):
        text.explain(docs.rename(columns={"body": "text"}), top=2)
    grouped_docs = docs.assign(g=[0, 0, 1, 1])
    grouped_text = sqlnb.NaiveBayes("gtx", con=con, family="multinomial").fit(
        grouped_docs, "label", text="body", group_by="g")
    with pytest.raises(UnknownColumnError, match="'g'"):
        grouped_text.explain(docs, top=2)
    mixed = frame(X, y).assign(g=np.arange(N_ROWS) % 2, colour=np.where(y == 1, "a", "b"))
    grouped_mixed = sqlnb.NaiveBayes("gmx", con=con, family="auto").fit(
        mixed, "y", group_by="g")
    for call in (grouped_mixed.explain, grouped_mixed.drift):
        with pytest.raises(UnknownColumnError, match="'g'"):
            call(mixed.drop(columns="g"))


DOCS = pd.DataFrame({
    "body": ["cheap pills now, now!", "meeting at noon", "cheap meeting pills",
             "lunch at noon in the office", "buy cheap pills now", "office party at noon",
             "nothing known here"],
    "label": ["spam", "ham", "spam", "ham", "spam", "ham", "ham"],
})


@pytest.mark.parametrize("family", ["multinomial", "complement", "bernoulli"])
def test_text_model_terms_per_token_and_the_identity(family):
    """A text model's explanation is per document, class and known term; the terms absent
    from a document stay in log_prior (Bernoulli's log(1 - p) of the whole vocabulary)."""
    from sklearn.feature_extraction.text import CountVectorizer

    con = duckdb.connect()
    model = sqlnb.NaiveBayes("tx", con=con, family=family).fit(DOCS, "label", text="body")
    rows = model.explain(DOCS).fetchall()
    vectorizer = CountVectorizer().fit(DOCS.body)
    X = vectorizer.transform(DOCS.body).toarray().astype(np.float64)
    nb = getattr(reference, f"{family.title()}NB")().fit(X, DOCS.label)
    terms = list(vectorizer.get_feature_names_out())
    flp = nb.feature_log_prob_
    for row, label, term, log_likelihood, _ in rows:
        c, f = list(nb.classes_).index(label), terms.index(term)
        if family == "bernoulli":
            expected = np.log(np.exp(flp[c, f])) - np.log1p(-np.exp(flp[c, f]))
        else:
            expected = X[row, f] * flp[c, f]
        assert log_likelihood == pytest.approx(expected, abs=1e-9)
    assert {(r[0], r[2]) for r in rows} == {(i, terms[f]) for i, f in zip(*np.nonzero(X))}
    sums = {}
    priors = {}
    for row, label, _, log_likelihood, log_prior in rows:
        sums[row, label] = sums.get((row, label), 0.0) + log_likelihood
        priors[label] = log_prior
    joint = nb.predict_joint_log_proba(X)
    for row in range(len(DOCS)):
        for c, label in enumerate(nb.classes_):
            assert priors[label] + sums.get((row, label), 0.0) == pytest.approx(
                joint[row, c], abs=1e-9)
    assert {r[0] for r in model.explain(DOCS, row=2).fetchall()} == {2}


def test_hostile_names_and_labels_reach_sql_only_as_literals():
    name = 'it\'s a "feature" */ --'
    df = pd.DataFrame({name: [1.0, 2.0, 3.0, 4.0], "colour": ["a'", "b", "a'", "b"],
                       "y": ["x'); DROP TABLE t; --", "y", "x'); DROP TABLE t; --", "y"]})
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family="auto").fit(df, "y")
    test = df.drop(columns="y")
    rows = model.explain(test).fetchall()
    assert {r[2] for r in rows} == {name, "colour"}
    assert {r[1] for r in rows} == {"x'); DROP TABLE t; --", "y"}
    top = model.explain(test, top=1).fetchall()
    assert top[0][5] in ("x'); DROP TABLE t; --", "y")
    assert [r[0] for r in model.drift(test).fetchall()] == [name, "colour"]


@pytest.mark.parametrize("family", ["gaussian", "bernoulli", "categorical", "multinomial"])
def test_per_group_model_identity(family):
    """Each row is explained by its group's model (the pooled one for a group unseen at
    fit); a class its group never saw has no terms (NULL), as it has no joint
    log-likelihood."""
    X, y, _ = family_data(family, seed=5)
    groups = np.arange(N_ROWS) % 3
    y = np.where(groups == 2, np.minimum(y, 1), y)  # group 2 never sees class 2
    con = duckdb.connect()
    train = frame(X, y).assign(g=groups)
    model = sqlnb.NaiveBayes("pg", con=con, family=family).fit(train, "y", group_by="g")
    test = frame(X).assign(g=np.where(np.arange(N_ROWS) < 5, 7, groups))  # 7: unseen group
    sums = {}
    for row, label, _, log_likelihood, log_prior in model.explain(test).fetchall():
        if log_likelihood is None:
            sums[row, label] = None
        else:
            sums[row, label] = sums.get((row, label), log_prior) + log_likelihood
    joint = model.predict_joint_log_proba(test).fetchall()
    for row, values in enumerate(joint):
        for i, label in enumerate(model.classes_):
            expected = values[N_FEATURES + 1 + i]
            if expected is None:
                assert sums[row, label] is None
            else:
                assert sums[row, label] == pytest.approx(expected, abs=1e-9)
    assert any(v is None for v in sums.values())
    top = model.explain(test, top=1).fetchall()
    predictions = [r[-1] for r in model.predict(test).fetchall()]
    assert [r[5] for r in top] == predictions


COLOURS = ["blue", "green", "red"]


def grouped_mixed_rows(seed=4):
    """A table for a per-group family="auto" model: two Gaussian columns, a categorical,
    a count (Poisson with integers="poisson") and a boolean (Bernoulli); three groups, the
    third never seeing class 2, every group seeing every colour."""
    rng = np.random.default_rng(seed)
    g = np.arange(N_ROWS) % 3
    y = rng.integers(0, 3, N_ROWS)
    y = np.where(g == 2, np.minimum(y, 1), y)
    codes = (rng.integers(0, 2, N_ROWS) + y) % 3
    codes[:9] = np.arange(9) // 3  # each group has each colour
    return pd.DataFrame({
        "height": rng.normal(size=N_ROWS) + y * (1 + g),
        "width": 2.0 * rng.normal(size=N_ROWS) - y,
        "colour": np.array(COLOURS)[codes],
        "visits": rng.poisson(1.0 + y + g).astype(np.int64),
        "member": rng.random(N_ROWS) < 0.3 + 0.2 * y,
        "g": g, "y": y})


MIXED_NAMES = ["height", "width", "colour", "visits", "member"]


def mixed_reference(train):
    """Per class (label -> index) of ``train`` the terms of the joint log-likelihood of a
    row of each feature, as a function of the rows, and the log priors: scikit-learn's
    GaussianNB (the two Gaussian columns), CategoricalNB and BernoulliNB fitted on these
    rows, and the Poisson rate in closed form (alpha = 1)."""
    classes = np.unique(train.y)
    gauss = reference.GaussianNB().fit(train[["height", "width"]], train.y)
    cat = reference.CategoricalNB().fit(
        train[["colour"]].map(COLOURS.index).to_numpy(), train.y)
    bern = reference.BernoulliNB().fit(train[["member"]].to_numpy(dtype=float), train.y)
    counts = train.visits.to_numpy(dtype=float)
    rate = np.array([(counts[train.y == c].sum() + 1.0) / ((train.y == c).sum() + 1.0)
                     for c in classes])

    def terms(X):
        x = X[["height", "width"]].to_numpy()[:, None, :]
        gaussian = (-0.5 * np.log(2 * np.pi * gauss.var_)[None]
                    - (x - gauss.theta_[None]) ** 2 / (2 * gauss.var_[None]))
        colour = cat.feature_log_prob_[0][:, X.colour.map(COLOURS.index).to_numpy()].T
        visits = X.visits.to_numpy(dtype=float)[:, None]
        poisson = visits * np.log(rate)[None] - rate[None] - gammaln(visits + 1)
        b = X.member.to_numpy(dtype=float)[:, None]
        p = bern.feature_log_prob_[:, 0][None]
        member = b * p + (1 - b) * np.log1p(-np.exp(p))
        return np.stack([gaussian[:, :, 0], gaussian[:, :, 1], colour, poisson, member], axis=2)

    return {label: i for i, label in enumerate(classes)}, terms, gauss.class_prior_


def test_per_group_mixed_model_against_scikit_learn_per_group():
    """A per-group family="auto" model explains each row with its group's model: each term
    and log prior equal scikit-learn's models fitted on the group's rows (the pooled rows
    for a group unseen at fit or a NULL group, as predict routes them); a class the group
    never saw has NULL terms; log_prior + the terms is predict_joint_log_proba; top=k and
    row= agree with the reference's ranking."""
    train = grouped_mixed_rows()
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("gm", con=con, family="auto", integers="poisson").fit(
        train, "y", group_by="g")
    assert model.families_ == {"height": "gaussian", "width": "gaussian",
                               "colour": "categorical", "visits": "poisson",
                               "member": "bernoulli"}
    test = grouped_mixed_rows(seed=9).drop(columns="y").astype({"g": "float64"})
    test.loc[:3, "g"] = 7.0  # a group the fit never saw
    test.loc[4, "g"] = np.nan  # NULL: the pooled model too
    fits = {g: mixed_reference(train[train.g == g]) for g in range(3)}
    pooled = mixed_reference(train)
    n_classes = len(model.classes_)
    expected = np.full((N_ROWS, n_classes, len(MIXED_NAMES)), np.nan)
    expected_priors = np.full((N_ROWS, n_classes), np.nan)
    for r, g in enumerate(test.g):
        index, terms, priors = fits.get(g, pooled)
        row_terms = terms(test.iloc[[r]])[0]
        for label, i in index.items():
            expected[r, model.classes_.index(label)] = row_terms[i]
            expected_priors[r, model.classes_.index(label)] = np.log(priors[i])
    rows = model.explain(test).fetchall()
    assert len(rows) == N_ROWS * n_classes * len(MIXED_NAMES)
    got = np.full_like(expected, -1.0)
    got_priors = np.full_like(expected_priors, -1.0)
    for row, label, feature, log_likelihood, log_prior in rows:
        c = model.classes_.index(label)
        got[row, c, MIXED_NAMES.index(feature)] = np.nan if log_likelihood is None \
            else log_likelihood
        got_priors[row, c] = np.nan if log_prior is None else log_prior
    assert np.isnan(expected).sum() > 0  # group 2 lacks class 2
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)  # NaN where NULL
    np.testing.assert_allclose(got_priors, expected_priors, rtol=1e-9, atol=1e-9)
    joint = np.array([[np.nan if v is None else v for v in r[-n_classes:]]
                      for r in model.predict_joint_log_proba(test).fetchall()])
    np.testing.assert_allclose(got_priors + got.sum(axis=2), joint, rtol=0, atol=1e-9)

    top = model.explain(test, top=2).fetchall()
    jll = np.where(np.isnan(joint), -np.inf, joint)
    assert [(r[0], r[1]) for r in top] == [(i, rank) for i in range(N_ROWS) for rank in (1, 2)]
    for row, rank, feature, value, contribution, prediction, runner_up in top:
        first, second = sorted(range(n_classes), key=lambda c: (-jll[row, c], c))[:2]
        diff = expected[row, first] - expected[row, second]
        f = sorted(range(len(MIXED_NAMES)), key=lambda j: (-diff[j], j))[rank - 1]
        assert (feature, prediction, runner_up) == (
            MIXED_NAMES[f], model.classes_[first], model.classes_[second])
        assert value == str(test[feature].iloc[row]).lower() or float(value) == pytest.approx(
            float(test[feature].iloc[row]))
        assert contribution == pytest.approx(diff[f], abs=1e-9)
    predictions = [r[-1] for r in model.predict(test).fetchall()]
    assert [r[5] for r in top if r[1] == 1] == predictions
    for r in (0, 4, 20):  # an unseen group, a NULL group, a known group
        assert model.explain(test, row=r).order("class, feature").fetchall() == \
            model.explain(test).filter(f"row_number = {r}").order("class, feature").fetchall()
        assert model.explain(test, top=2, row=r).fetchall() == [t for t in top if t[0] == r]


def test_macro_and_to_sql_of_a_per_group_mixed_model():
    """The <name>_explain macro and to_sql(output='explain') of a per-group family="auto"
    model give explain's rows (NULL terms of a class a group never saw included)."""
    train = grouped_mixed_rows()
    test = grouped_mixed_rows(seed=9).drop(columns="y").astype({"g": "float64"})
    test.loc[:3, "g"] = 7.0
    test.loc[4, "g"] = np.nan
    con = duckdb.connect()
    con.register("rows_frame", test)
    con.execute("CREATE TABLE rows AS SELECT * FROM rows_frame")
    model = sqlnb.NaiveBayes("gm", con=con, family="auto").fit(train, "y", group_by="g")
    order = "ORDER BY row_number, class, feature"
    expected = model.explain("rows").order("row_number, class, feature").fetchall()
    assert any(r[3] is None for r in expected)
    for got in (con.sql(f"SELECT * FROM gm_explain('rows') {order}").fetchall(),
                con.sql(f"SELECT * FROM ({model.to_sql('rows', output='explain')}) {order}")
                .fetchall()):
        assert len(got) == len(expected) == N_ROWS * len(model.classes_) * len(MIXED_NAMES)
        for a, b in zip(got, expected):
            assert a[:3] == b[:3]
            for u, v in zip(a[3:], b[3:]):
                assert (u is None) == (v is None)
                assert u is None or u == pytest.approx(v, rel=1e-12, abs=1e-12)
    assert con.sql(model.to_sql("rows", output="explain", top=2)).fetchall() == \
        model.explain("rows", top=2).fetchall()


def test_macro_and_to_sql_are_the_same_explanation():
    """<name>_explain(relation) and to_sql(output='explain') inline the parameters in the
    statement explain runs: the same rows to 1e-12, and the macro follows an update."""
    X, y, _ = family_data("gaussian", seed=7)
    con = duckdb.connect()
    con.register("train_frame", frame(X, y))
    con.execute("CREATE TABLE train AS SELECT * FROM train_frame")
    con.execute("CREATE TABLE rows AS SELECT * EXCLUDE (y) FROM train")
    model = sqlnb.NaiveBayes("m", con=con).fit("train", "y")

    def same(got, expected):
        assert len(got) == len(expected) == N_ROWS * 3 * N_FEATURES
        for a, b in zip(got, expected):
            assert a[:3] == b[:3]
            assert a[3] == pytest.approx(b[3], rel=1e-12, abs=1e-12)
            assert a[4] == pytest.approx(b[4], rel=1e-12, abs=1e-12)

    order = "ORDER BY row_number, class, feature"
    expected = model.explain("rows").order("row_number, class, feature").fetchall()
    same(con.sql(f"SELECT * FROM m_explain('rows') {order}").fetchall(), expected)
    same(con.sql(f"SELECT * FROM ({model.to_sql('rows', output='explain')}) {order}").fetchall(),
         expected)
    top = con.sql(model.to_sql("rows", output="explain", top=2)).fetchall()
    assert top == model.explain("rows", top=2).fetchall()
    model.partial_fit(frame(X[:10] + 3.0, y[:10]), "y")  # the macro follows the statistics
    moved = model.explain("rows").order("row_number, class, feature").fetchall()
    assert moved != expected
    same(con.sql(f"SELECT * FROM m_explain('rows') {order}").fetchall(), moved)
    with pytest.raises(InvalidParameterError, match="top"):
        model.to_sql("rows", output="predict", top=2)


def macro_explained(con, name, source, classes):
    """<name>_explain(source) as an array (row, class, feature) and the log prior per class."""
    rows = con.sql(f"SELECT * FROM {name}_explain('{source}')").fetchall()
    terms = np.empty((len(rows) // (len(classes) * N_FEATURES), len(classes), N_FEATURES))
    priors = {}
    for row, label, feature, log_likelihood, log_prior in rows:
        terms[row, classes.index(label), NAMES.index(feature)] = log_likelihood
        priors[label] = log_prior
    return terms, np.array([priors[c] for c in classes])


@pytest.mark.parametrize("family", ["gaussian", "multinomial", "complement", "bernoulli",
                                    "poisson"])
def test_the_explain_macro_reads_the_parameter_views(family, tmp_path):
    """The explain macro of a model of one numeric family reads its parameters from a view
    over the statistics: an update by another connection that adds no class is seen by a
    plain SQL client's macro, which the update did not re-create."""
    X, y, _ = family_data(family, seed=11)
    half = N_ROWS // 2
    con = duckdb.connect(str(tmp_path / "models.duckdb"))
    for table, rows in (("first_rows", X[:half]), ("rows", X)):
        con.register("rows_frame", frame(rows))
        con.execute(f"CREATE TABLE {table} AS SELECT * FROM rows_frame")
    writer = con.cursor()
    model = sqlnb.NaiveBayes("m", con=writer, family=family).fit(frame(X[:half], y[:half]), "y")
    client = con.cursor()
    text = "SELECT macro_definition FROM duckdb_functions() WHERE function_name = 'm_explain'"
    before = client.execute(text).fetchall()
    terms, priors = macro_explained(client, "m", "first_rows", [0, 1, 2])
    expected_terms, expected_priors = reference_terms(family, X[:half], y[:half], np.ones(half))
    np.testing.assert_allclose(terms, expected_terms, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(priors, expected_priors, rtol=1e-9, atol=1e-9)
    model.partial_fit(frame(X[half:], y[half:]), "y")
    assert client.execute(text).fetchall() == before  # not re-created ...
    terms, priors = macro_explained(client, "m", "rows", [0, 1, 2])
    expected_terms, expected_priors = reference_terms(family, X, y, np.ones(N_ROWS))
    np.testing.assert_allclose(terms, expected_terms, rtol=1e-9, atol=1e-9)  # ... yet current
    np.testing.assert_allclose(priors, expected_priors, rtol=1e-9, atol=1e-9)
    same = model.explain("rows").order("row_number, class, feature").fetchall()
    got = client.sql("SELECT * FROM m_explain('rows') ORDER BY row_number, class, feature").fetchall()
    assert [r[:3] for r in got] == [r[:3] for r in same]
    np.testing.assert_allclose([r[3:] for r in got], [r[3:] for r in same], rtol=1e-12, atol=1e-12)


def test_macro_of_a_mixed_and_a_per_group_model():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, N_ROWS)
    df = pd.DataFrame({"height": rng.normal(size=N_ROWS) + y,
                       "colour": np.where(rng.random(N_ROWS) < 0.3 + 0.4 * y, "red", "blue"),
                       "g": np.arange(N_ROWS) % 2, "y": y})
    con = duckdb.connect()
    con.register("df_frame", df)
    con.execute("CREATE TABLE df AS SELECT * FROM df_frame")
    order = "ORDER BY row_number, class, feature"
    for model in (sqlnb.NaiveBayes("mx", con=con, family="auto").fit("df", "y"),
                  sqlnb.NaiveBayes("pg", con=con).fit(
                      df.drop(columns="colour"), "y", group_by="g")):
        got = con.sql(f"SELECT * FROM {model.name}_explain('df') {order}").fetchall()
        expected = model.explain("df").order("row_number, class, feature").fetchall()
        assert len(got) == len(expected) > 0
        for a, b in zip(got, expected):
            assert a[:3] == b[:3]
            assert a[3] == pytest.approx(b[3], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("family", ["multinomial", "complement", "bernoulli"])
def test_text_top_k_agrees_with_numpy(family):
    """Per document, the known terms with the largest part in the predicted class less
    their part in the runner-up (ties to the first term alphabetically)."""
    from sklearn.feature_extraction.text import CountVectorizer

    con = duckdb.connect()
    model = sqlnb.NaiveBayes("tx", con=con, family=family).fit(DOCS, "label", text="body")
    vectorizer = CountVectorizer().fit(DOCS.body)
    X = vectorizer.transform(DOCS.body).toarray().astype(np.float64)
    nb = getattr(reference, f"{family.title()}NB")().fit(X, DOCS.label)
    terms = list(vectorizer.get_feature_names_out())
    flp = nb.feature_log_prob_
    if family == "bernoulli":  # a present term's part: log p - log(1 - p)
        parts = (X > 0)[:, None, :] * (flp - np.log1p(-np.exp(flp)))[None]
    else:
        parts = X[:, None, :] * flp[None]
    joint = nb.predict_joint_log_proba(X)
    rows = model.explain(DOCS, top=2).fetchall()
    expected = []
    for r in range(len(DOCS)):
        present = np.nonzero(X[r])[0]
        if not len(present):
            continue
        first, second = sorted(range(len(nb.classes_)), key=lambda c: (-joint[r, c], c))[:2]
        diff = parts[r, first] - parts[r, second]
        best = sorted(present, key=lambda f: (-diff[f], terms[f]))[:2]
        for rank, f in enumerate(best, 1):
            expected.append((r, rank, terms[f], X[r, f], diff[f],
                             nb.classes_[first], nb.classes_[second]))
    assert [r[:3] for r in rows] == [e[:3] for e in expected]
    for got, want in zip(rows, expected):
        assert float(got[3]) == want[3]
        assert got[4] == pytest.approx(want[4], abs=1e-9)
        assert got[5:] == want[5:]


@pytest.mark.parametrize(("family", "options"), [
    ("multinomial", {}),
    ("complement", {"tfidf": True}),
    ("bernoulli", {"ngram_range": (1, 2)}),
])
def test_text_to_sql_and_macro_are_the_same_explanation(family, options, tmp_path):
    """A text model's to_sql(output='explain') (its vocabulary inlined) and its
    <name>_explain(relation) macro, run by a plain DuckDB client, list explain's rows; the
    macro follows a partial_fit, and a write without macros drops it."""
    con = duckdb.connect(str(tmp_path / "models.duckdb"))
    con.register("docs_frame", DOCS)
    con.execute("CREATE TABLE docs AS SELECT * FROM docs_frame")
    model = sqlnb.NaiveBayes("tx", con=con.cursor(), family=family).fit(
        "docs", "label", text="body", **options)
    client = con.cursor()

    def same(got, expected, keys):
        assert len(got) == len(expected) > 0
        for a, b in zip(got, expected):
            assert a[:keys] == b[:keys]
            for x, y in zip(a[keys:], b[keys:]):
                if isinstance(y, float):
                    assert x == pytest.approx(y, rel=1e-12, abs=1e-12)
                else:
                    assert x == y

    order = "ORDER BY row_number, class, feature"
    expected = model.explain("docs").order("row_number, class, feature").fetchall()
    bare = duckdb.connect()  # no sqlnb table there: the statement reads the source only
    bare.register("docs", DOCS)
    statement = model.to_sql("docs", output="explain")
    same(bare.sql(f"SELECT * FROM ({statement}) {order}").fetchall(), expected, keys=3)
    same(client.sql(f"SELECT * FROM tx_explain('docs') {order}").fetchall(), expected, keys=3)
    top = bare.sql(model.to_sql("docs", output="explain", top=2)).fetchall()
    same(top, model.explain("docs", top=2).fetchall(), keys=3)

    more = DOCS.assign(label=DOCS.label.map({"spam": "ham", "ham": "spam"}))
    model.partial_fit(more, "label", text="body")  # the macro follows the statistics
    moved = model.explain("docs").order("row_number, class, feature").fetchall()
    assert [r[3] for r in moved] != [r[3] for r in expected]
    same(client.sql(f"SELECT * FROM tx_explain('docs') {order}").fetchall(), moved, keys=3)

    sqlnb.NaiveBayes("tx", con=con.cursor(), family=family, sql_macros=False).partial_fit(
        DOCS, "label", text="body")
    listed = "SELECT count(*) FROM duckdb_functions() WHERE function_name = 'tx_explain'"
    assert client.execute(listed).fetchone() == (0,)  # a write without macros drops it


def test_per_group_text_to_sql_and_macro_are_the_same_explanation():
    """A per-group text model's explain statement (every group's vocabulary inlined) and
    its <name>_explain macro give explain's rows: each document by its group's model, the
    pooled one for a group no fit saw (tests/test_text_groups.py checks explain against
    scikit-learn per group)."""
    docs = DOCS.assign(g=np.arange(len(DOCS)) % 2)
    scored = docs.assign(g=np.arange(len(DOCS)) % 3)  # group 2: the pooled model's
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("gtx", con=con, family="multinomial").fit(
        docs, "label", text="body", group_by="g")
    con.register("scored", scored)
    bare = duckdb.connect()
    bare.register("scored", scored)
    order = "ORDER BY row_number, class, feature"
    expected = model.explain("scored").order("row_number, class, feature").fetchall()
    assert {r[0] for r in expected} >= {2, 5}  # rows of group 2
    for got in (bare.sql(f"SELECT * FROM ({model.to_sql('scored', output='explain')}) "
                         f"{order}").fetchall(),
                con.sql(f"SELECT * FROM gtx_explain('scored') {order}").fetchall()):
        assert [r[:3] for r in got] == [r[:3] for r in expected]
        np.testing.assert_allclose([r[3:] for r in got], [r[3:] for r in expected],
                                   rtol=1e-12, atol=1e-12)
    top = bare.sql(model.to_sql("scored", output="explain", top=2)).fetchall()
    assert [r[:3] + r[5:] for r in top] == [
        r[:3] + r[5:] for r in model.explain("scored", top=2).fetchall()]


def test_a_text_model_does_not_take_a_users_explain_macro():
    """<name>_explain is one of the names a text model claims: a macro of the user's by
    that name stops the fit (NameConflictError) and stays as it was; drop() removes the
    model's own."""
    from sqlnb.errors import NameConflictError

    con = duckdb.connect()
    con.execute("CREATE MACRO tx_explain(relation) AS TABLE SELECT 42 AS mine")
    with pytest.raises(NameConflictError, match="tx_explain"):
        sqlnb.NaiveBayes("tx", con=con, family="multinomial").fit(DOCS, "label", text="body")
    assert con.execute("SELECT * FROM tx_explain('anything')").fetchall() == [(42,)]
    model = sqlnb.NaiveBayes("ty", con=con, family="multinomial").fit(
        DOCS, "label", text="body")
    listed = "SELECT count(*) FROM duckdb_functions() WHERE function_name = 'ty_explain'"
    assert con.execute(listed).fetchone() == (1,)
    model.drop()
    assert con.execute(listed).fetchone() == (0,)
