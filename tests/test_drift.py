"""model.drift: one scan of new rows against the model's statistics, per feature."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import sqlnb
from sqlnb.errors import InvalidParameterError, UnknownColumnError, UnsupportedError

N_ROWS = 400


def rows(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N_ROWS)
    return pd.DataFrame({
        "a": rng.normal(size=N_ROWS) + y,
        "b": 3.0 * rng.normal(size=N_ROWS) - 2.0,
        "c": rng.normal(size=N_ROWS) * 0.5,
        "y": y,
    })


def counts(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N_ROWS)
    return pd.DataFrame({f"x{i}": rng.poisson(2.0 + i + y) for i in range(3)}).assign(y=y)


def drift_of(model, source):
    return {r[0]: r for r in model.drift(source).fetchall()}


@pytest.mark.parametrize("family", ["gaussian", "multinomial", "complement", "bernoulli",
                                    "categorical", "poisson"])
def test_the_training_rows_themselves_do_not_drift(family):
    data = rows() if family == "gaussian" else counts()
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family=family).fit(data, "y")
    found = model.drift(data.drop(columns="y")).fetchall()
    assert [r[0] for r in found] == model.features_
    for feature, _, method, drift, _, batch_count, *_ in found:
        assert 0 <= drift <= 0.01, (feature, method, drift)
        assert batch_count == N_ROWS


def test_gaussian_kl_against_numpy_and_a_shift_of_one_spread_ranks_first():
    data = rows()
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con).fit(data, "y")
    shifted = data.assign(b=data.b + data.b.std(ddof=0), c=data.c * 1.2)
    found = drift_of(model, shifted)
    ranked = sorted(found, key=lambda f: -found[f][3])
    assert ranked[0] == "b"
    for feature in "abc":
        x, ref = shifted[feature].to_numpy(), data[feature].to_numpy()
        # the model's variances are smoothed by var_smoothing x the largest: negligible here
        vb, vm = x.var(), ref.var()
        expected = 0.5 * (np.log(vm / vb) + (vb + (x.mean() - ref.mean()) ** 2) / vm - 1)
        _, _, method, drift, _, n, mean, spread, model_n, model_mean, model_spread, *_ = \
            found[feature]
        assert method == "gaussian_kl"
        assert drift == pytest.approx(expected, rel=1e-6, abs=1e-9)
        assert (n, model_n) == (N_ROWS, N_ROWS)
        assert mean == pytest.approx(x.mean()) and model_mean == pytest.approx(ref.mean())
        assert spread == pytest.approx(x.std()) and model_spread == pytest.approx(ref.std())
    assert found["b"][3] == pytest.approx(0.5, abs=0.01)  # (one spread)^2 / 2


def test_weighted_gaussian_model_compares_the_unweighted_rows():
    data = rows().assign(w=np.linspace(0.5, 2.0, N_ROWS))
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con).fit(data, "y", weight="w")
    assert all(r[3] <= 1e-9 for r in model.drift(data).fetchall())


def test_poisson_kl_and_a_shifted_count_ranks_first():
    data = counts()
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family="poisson").fit(data, "y")
    shifted = data.assign(x1=data.x1 + np.sqrt(data.x1.mean()).round().astype(int))
    found = drift_of(model, shifted)
    assert max(found, key=lambda f: found[f][3]) == "x1"
    lb, lm = shifted.x1.mean(), data.x1.mean()
    assert found["x1"][2] == "poisson_kl"
    assert found["x1"][3] == pytest.approx(lb * np.log(lb / lm) - lb + lm, rel=1e-9)
    assert found["x1"][4] is None  # no PSI for counts


def test_psi_over_the_models_categories_with_a_bin_for_unseen_values():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, N_ROWS)
    colour = rng.choice(["red", "green", "blue"], N_ROWS, p=[0.5, 0.3, 0.2])
    train = pd.DataFrame({"colour": colour, "y": y})
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family="categorical").fit(train, "y")
    batch = pd.DataFrame({"colour": ["red"] * 50 + ["green"] * 20 + ["pink"] * 30})
    (feature, _, method, drift, psi, n, *_, batch_top, model_top), = model.drift(batch).fetchall()
    m = {c: np.mean(colour == c) for c in ("red", "green", "blue")}
    b = {"red": 0.5, "green": 0.2, "blue": 0.0}
    eps = 1e-4
    expected = sum((b[c] - m[c]) * np.log(max(b[c], eps) / max(m[c], eps)) for c in m)
    expected += 0.3 * np.log(0.3 / eps)  # pink: a bin the model never saw
    assert (feature, method, n) == ("colour", "psi", 100)
    assert drift == pytest.approx(expected, rel=1e-9)
    assert psi == drift
    assert batch_top[0] == {"category": "red", "share": 0.5}
    assert batch_top[1] == {"category": None, "share": 0.3}  # the unseen values
    assert model_top[0]["category"] == "red"


def test_mixed_model_each_part_by_its_method():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, N_ROWS)
    data = pd.DataFrame({"height": rng.normal(size=N_ROWS) + y,
                         "colour": np.where(rng.random(N_ROWS) < 0.3 + 0.4 * y, "red", "blue"),
                         "member": rng.random(N_ROWS) < 0.5, "y": y})
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family="auto").fit(data, "y")
    found = drift_of(model, data)
    assert {f: r[2] for f, r in found.items()} == {
        "height": "gaussian_kl", "colour": "psi", "member": "psi"}
    assert all(r[3] <= 1e-9 for r in found.values())
    moved = drift_of(model, data.assign(height=data.height + data.height.std()))
    assert max(moved, key=lambda f: moved[f][3]) == "height"


def test_refusals():
    con = duckdb.connect()
    data = rows()
    model = sqlnb.NaiveBayes("m", con=con).fit(data, "y")
    with pytest.raises(UnknownColumnError, match="'c'"):
        model.drift(data.drop(columns="c"))
    docs = pd.DataFrame({"body": ["red blue", "blue green", "red green", "green green"],
                         "label": [0, 1, 0, 1]})
    text = sqlnb.NaiveBayes("tx", con=con, family="multinomial").fit(docs, "label", text="body")
    with pytest.raises(UnsupportedError, match="per class"):
        text.drift(docs, by_class=True)


def test_per_group_model_is_compared_with_its_pooled_statistics():
    """A per-group model's drift: the batch against what the model learned of every
    group's rows together (its pooled model), held to NumPy's moments of those rows."""
    data = rows().assign(g=np.arange(N_ROWS) % 3)
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("pg", con=con).fit(data, "y", group_by="g")
    assert all(r[3] <= 1e-9 for r in model.drift(data).fetchall())
    moved = data.assign(a=data.a + data.a.std(ddof=0))
    found = drift_of(model, moved[moved.g != 2])  # a batch of two groups only
    assert max(found, key=lambda f: found[f][3]) == "a"
    epsilon = 1e-9 * data[["a", "b", "c"]].var(ddof=0).max()
    for feature in "abc":
        x, ref = moved[feature][moved.g != 2].to_numpy(), data[feature].to_numpy()
        vb, vm = x.var() + epsilon, ref.var() + epsilon
        expected = 0.5 * (np.log(vm / vb) + (vb + (x.mean() - ref.mean()) ** 2) / vm - 1)
        assert found[feature][3] == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert found[feature][8] == N_ROWS
    colours = pd.DataFrame({"colour": np.where(np.arange(N_ROWS) % 5 < 2, "red", "blue"),
                            "g": np.arange(N_ROWS) % 3, "y": data.y})
    cat = sqlnb.NaiveBayes("pgc", con=con, family="categorical").fit(
        colours, "y", group_by="g")
    (row,) = cat.drift(colours[colours.g == 0]).fetchall()
    b = np.mean(colours.colour[colours.g == 0] == "red")
    m = np.mean(colours.colour == "red")
    assert row[3] == pytest.approx(
        (b - m) * np.log(b / m) + (m - b) * np.log((1 - b) / (1 - m)), rel=1e-9)


def test_bernoulli_without_binarize_reads_the_values_as_they_are():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, N_ROWS)
    data = pd.DataFrame({"x0": rng.integers(0, 2, N_ROWS), "y": y})
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family="bernoulli", binarize=None).fit(data, "y")
    (_, _, method, drift, _, _, mean, *_), = model.drift(data).fetchall()
    assert (method, drift) == ("psi", pytest.approx(0.0, abs=1e-12))
    assert mean == pytest.approx(data.x0.mean())


def reference_psi(x, mean, var, bins=10, eps=1e-4):
    """PSI of the values ``x`` over ``bins`` bins of equal probability under N(mean, var)."""
    edges = norm.ppf(np.arange(1, bins) / bins, loc=mean, scale=np.sqrt(var))
    shares = np.bincount(np.searchsorted(edges, x, side="right"), minlength=bins) / len(x)
    return float(np.sum((shares - 1 / bins) * np.log(np.maximum(shares, eps) * bins)))


def test_psi_over_bins_of_equal_probability_under_the_models_normal_law():
    data = rows()
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con).fit(data, "y")
    shifted = data.assign(b=data.b + data.b.std(ddof=0))
    assert all(r[4] is None for r in model.drift(shifted).fetchall())  # bins: opt-in
    found = {r[0]: r for r in model.drift(shifted, bins=10).fetchall()}
    epsilon = 1e-9 * data[["a", "b", "c"]].var(ddof=0).max()  # var_smoothing x the largest
    for feature in "abc":
        ref = data[feature].to_numpy()
        expected = reference_psi(shifted[feature].to_numpy(), ref.mean(), ref.var() + epsilon)
        assert found[feature][4] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert max(found, key=lambda f: found[f][4]) == "b"
    assert found["b"][4] > 0.25  # one spread: a major shift by the practitioners' reading
    coarse = {r[0]: r for r in model.drift(shifted, bins=5).fetchall()}
    ref = data.b.to_numpy()
    assert coarse["b"][4] == pytest.approx(
        reference_psi(shifted.b.to_numpy(), ref.mean(), ref.var() + epsilon, bins=5), rel=1e-9)
    with pytest.raises(InvalidParameterError, match="bins"):
        model.drift(shifted, bins=1)


def test_drift_per_class_against_each_classs_statistics():
    """by_class: after each feature's pooled row, one row per class, its rows against the
    model's moments of that class; a shift in one class only shows there first."""
    data = rows()
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con).fit(data, "y")
    same = model.drift(data, by_class=True).fetchall()
    assert [(r[0], r[1]) for r in same] == [(f, c) for f in "abc" for c in (None, 0, 1)]
    assert all(0 <= r[3] <= 0.01 for r in same)
    moved = data.assign(c=np.where(data.y == 1, data.c + data.c[data.y == 1].std(ddof=0),
                                   data.c))
    found = {(r[0], r[1]): r for r in model.drift(moved, by_class=True).fetchall()}
    for (feature, label), row in found.items():
        if label is None:
            continue
        x = moved[feature][moved.y == label].to_numpy()
        ref = data[feature][data.y == label].to_numpy()
        vb, vm = x.var(), ref.var()
        expected = 0.5 * (np.log(vm / vb) + (vb + (x.mean() - ref.mean()) ** 2) / vm - 1)
        assert row[3] == pytest.approx(expected, rel=1e-6, abs=1e-9)
        assert row[5] == len(x) and row[8] == len(ref)
    per_class = {k: r for k, r in found.items() if k[1] is not None}
    assert max(per_class, key=lambda k: per_class[k][3]) == ("c", 1)
    assert found["c", 1][3] == pytest.approx(0.5, abs=0.02)
    with pytest.raises(UnknownColumnError, match="'y'"):
        model.drift(data.drop(columns="y"), by_class=True)


def test_categorical_drift_per_class():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, N_ROWS)
    colour = np.where(rng.random(N_ROWS) < 0.3 + 0.4 * y, "red", "blue")
    train = pd.DataFrame({"colour": colour, "y": y})
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family="categorical").fit(train, "y")
    found = {r[1]: r for r in model.drift(train, by_class=True).fetchall()}
    assert set(found) == {None, 0, 1}
    assert all(r[3] == pytest.approx(0.0, abs=1e-12) for r in found.values())
    batch = pd.DataFrame({"colour": ["red"] * 30, "y": [0] * 30})
    found = {r[1]: r for r in model.drift(batch, by_class=True).fetchall()}
    assert set(found) == {None, 0}  # a class the batch lacks is no row
    m0 = np.mean(colour[y == 0] == "red")
    expected = (1 - m0) * np.log(1 / m0) + (0 - (1 - m0)) * np.log(1e-4 / (1 - m0))
    assert found[0][3] == pytest.approx(expected, rel=1e-9)


def test_text_drift_over_the_term_shares():
    """A text model: one row for its text column, the PSI of the batch's token shares per
    vocabulary term (plus a bin for unknown tokens) against the fitted documents'."""
    from sklearn.feature_extraction.text import CountVectorizer

    docs = pd.DataFrame({"body": ["red blue red", "blue green", "red green", "green green"],
                         "label": [0, 1, 0, 1]})
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("tx", con=con, family="multinomial").fit(docs, "label", text="body")
    (same,) = model.drift(docs).fetchall()
    assert same[:4] == ("body", None, "psi", 0.0)
    batch = pd.DataFrame({"body": ["red red red pink", "green blue"]})
    (row,) = model.drift(batch).fetchall()
    vectorizer = CountVectorizer().fit(docs.body)
    m = vectorizer.transform(docs.body).toarray().sum(axis=0)
    m = np.append(m / m.sum(), 0.0)  # the last bin: tokens the vocabulary lacks
    b = np.array([1, 1, 3, 1]) / 6  # blue, green, red, then pink
    eps = 1e-4
    expected = np.sum((b - m) * np.log(np.maximum(b, eps) / np.maximum(m, eps)))
    assert row[3] == pytest.approx(expected, rel=1e-9) and row[4] == row[3]
    assert row[5] == 6 and row[8] == 9
    assert row[11][0] == {"category": "red", "share": 0.5}


def test_nan_in_a_parquet_file_is_a_missing_value(tmp_path):
    """NaN counts as missing (left out of the moments) even in a Parquet file whose
    statistics leave NaN out, which DuckDB may use to fold a comparison with NaN."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = rows()
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con).fit(data, "y")
    a = data.a.to_numpy().copy()
    a[::10] = np.nan
    path = tmp_path / "batch.parquet"
    pq.write_table(pa.table({"a": a, "b": data.b, "c": data.c}), path)
    found = drift_of(model, con.read_parquet(str(path)))
    kept = a[~np.isnan(a)]
    assert found["a"][5] == len(kept)
    assert found["a"][6] == pytest.approx(kept.mean(), rel=1e-12)
    assert found["a"][7] == pytest.approx(kept.std(), rel=1e-9)
    assert found["b"][3] <= 1e-9


@pytest.mark.parametrize("by_class", [False, True])
def test_categories_counted_by_grouping_sets_as_by_histograms(monkeypatch, by_class):
    """The grouping sets that count categories on engines without DuckDB's histogram
    (Spark) give the histograms' figures, for a mixed model with two categorical features
    (run here on DuckDB, the engine told it lacks DuckDB's lists)."""
    import dataclasses

    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, N_ROWS)
    data = pd.DataFrame({"height": rng.normal(size=N_ROWS) + y,
                         "colour": np.where(rng.random(N_ROWS) < 0.3 + 0.4 * y, "red", "blue"),
                         "size": rng.choice(["s", "m", "l"], N_ROWS),
                         "member": rng.random(N_ROWS) < 0.5, "y": y})
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("m", con=con, family="auto").fit(data, "y")
    moved = data.assign(height=data.height + 1,
                        colour=np.where(data.colour == "red", "green", data.colour))
    by_histograms = model.drift(moved, by_class=by_class, bins=5).fetchall()
    engine = model.engine
    monkeypatch.setattr(engine, "capabilities",
                        dataclasses.replace(engine.capabilities, list_lambdas=False))
    by_sets = model.drift(moved, by_class=by_class, bins=5).fetchall()
    assert len(by_sets) == len(by_histograms) == (12 if by_class else 4)
    for got, expected in zip(by_sets, by_histograms):
        assert got[:3] == expected[:3]
        for x, e in zip(got[3:], expected[3:]):
            assert x == (pytest.approx(e, rel=1e-12) if isinstance(e, float) else e)
    colour = {r[1]: r for r in by_sets if r[0] == "colour"}
    # every red became green, a category the model never saw: the NULL bin
    assert colour[None][11][0] == {"category": None, "share": np.mean(data.colour == "red")}


def test_per_group_mixed_model_is_compared_with_its_pooled_statistics():
    """A per-group family="auto" model's drift: each part against what the model learned
    of every group's rows together, held to NumPy on those rows; a shifted column ranks
    first."""
    rng = np.random.default_rng(6)
    g = np.arange(N_ROWS) % 3
    y = rng.integers(0, 2, N_ROWS)
    data = pd.DataFrame({
        "height": rng.normal(size=N_ROWS) + y * g,
        "width": 2.0 * rng.normal(size=N_ROWS) + 1.0,
        "colour": rng.choice(["red", "green", "blue"], N_ROWS, p=[0.5, 0.3, 0.2]),
        "visits": rng.poisson(2.0 + g).astype(np.int64),
        "g": g, "y": y})
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("pgm", con=con, family="auto", integers="poisson").fit(
        data, "y", group_by="g")
    same = drift_of(model, data)
    assert {f: r[2] for f, r in same.items()} == {
        "height": "gaussian_kl", "width": "gaussian_kl", "colour": "psi",
        "visits": "poisson_kl"}
    assert all(0 <= r[3] <= 1e-9 for r in same.values())
    moved = data.assign(width=data.width + data.width.std(ddof=0),
                        visits=data.visits + 1, colour=np.where(g == 0, "red", data.colour))
    batch = moved[moved.g != 2]  # a batch of two groups only
    found = drift_of(model, batch)
    assert max(found, key=lambda f: found[f][3]) == "width"
    epsilon = 1e-9 * data[["height", "width"]].var(ddof=0).max()
    for feature in ("height", "width"):
        x, ref = batch[feature].to_numpy(), data[feature].to_numpy()
        vb, vm = x.var() + epsilon, ref.var() + epsilon
        expected = 0.5 * (np.log(vm / vb) + (vb + (x.mean() - ref.mean()) ** 2) / vm - 1)
        assert found[feature][3] == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert (found[feature][5], found[feature][8]) == (len(batch), N_ROWS)
    lb, lm = batch.visits.mean(), data.visits.mean()
    assert found["visits"][3] == pytest.approx(lb * np.log(lb / lm) - lb + lm, rel=1e-9)
    shares = [(np.mean(batch.colour == c), np.mean(data.colour == c))
              for c in ("red", "green", "blue")]
    assert found["colour"][3] == pytest.approx(
        sum((b - m) * np.log(max(b, 1e-4) / max(m, 1e-4)) for b, m in shares), rel=1e-9)
