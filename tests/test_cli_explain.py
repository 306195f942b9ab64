"""``sqlnb explain`` and ``sqlnb drift``, driven in a subprocess on Parquet files made here."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.naive_bayes import GaussianNB
from test_cli import FEATURES, SPECIES, ok, read


@pytest.fixture
def fitted(tmp_path):
    X, y = load_iris(return_X_y=True)
    frame = pd.DataFrame(X, columns=FEATURES).assign(species=SPECIES[y])
    frame.to_parquet(tmp_path / "iris.parquet")
    ok("fit", "m.duckdb", "flowers", "iris.parquet", "--target", "species", cwd=tmp_path)
    return tmp_path, X, SPECIES[y]


def test_explain_writes_the_top_contributions_and_a_waterfall(fitted):
    where, X, y = fitted
    ok("explain", "m.duckdb", "flowers", "iris.parquet", "--top", "2", "-o", "why.parquet",
       "--plot", "why.png", "--row", "70", "--no-progress", cwd=where)
    why = read(where / "why.parquet")
    assert why["row_number"].tolist() == [70, 70] and why["rank"].tolist() == [1, 2]
    # the contributions are the difference of two classes' per-feature terms
    nb = GaussianNB().fit(X, y)
    jll = nb.predict_joint_log_proba(X[70:71])[0]
    first, second = np.argsort(-jll, kind="stable")[:2]
    x = X[70]
    terms = (-0.5 * np.log(2 * np.pi * nb.var_) - (x - nb.theta_) ** 2 / (2 * nb.var_))
    diff = terms[first] - terms[second]
    best = np.argsort(-diff, kind="stable")[:2]
    assert why["feature"].tolist() == [FEATURES[i] for i in best]
    np.testing.assert_allclose(why["contribution"], diff[best], atol=1e-9)
    assert why["prediction"].tolist() == [nb.classes_[first]] * 2
    assert (where / "why.png").stat().st_size > 0


def test_drift_prints_a_row_per_feature_and_draws_them(fitted):
    where, X, _ = fitted
    moved = pd.DataFrame(X, columns=FEATURES)
    moved["petal_width"] += moved["petal_width"].std(ddof=0)
    moved.to_parquet(where / "moved.parquet")
    shown = ok("drift", "m.duckdb", "flowers", "moved.parquet", "--json", "--plot",
               "drift.png", "--no-progress", cwd=where)
    rows = json.loads(shown)
    assert [r["feature"] for r in rows] == FEATURES
    assert max(rows, key=lambda r: r["drift"])["feature"] == "petal_width"
    assert all(r["method"] == "gaussian_kl" for r in rows)
    assert all(r["psi"] is None for r in rows)  # the PSI bins are asked for
    assert (where / "drift.png").stat().st_size > 0
    binned = json.loads(ok("drift", "m.duckdb", "flowers", "moved.parquet", "--json",
                           "--bins", "5", "--no-progress", cwd=where))
    assert max(binned, key=lambda r: r["psi"])["feature"] == "petal_width"
    assert [r["drift"] for r in binned] == pytest.approx([r["drift"] for r in rows])


def test_drift_by_class_and_the_explain_statement(fitted):
    where, X, y = fitted
    frame = pd.DataFrame(X, columns=FEATURES).assign(species=y)
    frame.to_parquet(where / "labelled.parquet")
    rows = json.loads(ok("drift", "m.duckdb", "flowers", "labelled.parquet", "--json",
                         "--by-class", "--no-progress", cwd=where))
    assert [(r["feature"], r["class"]) for r in rows] == [
        (f, c) for f in FEATURES for c in (None, *sorted(set(y)))]
    assert all(r["drift"] <= 0.01 for r in rows)
    statement = ok("sql", "m.duckdb", "flowers", "--source", "read_parquet('iris.parquet')",
                   "--output", "explain", "--top", "2", cwd=where)
    import duckdb

    con = duckdb.connect()
    con.execute(f"SET file_search_path = '{where}'")
    got = con.sql(f"SELECT * FROM ({statement}) WHERE row_number = 70").fetchall()
    why = where / "why.parquet"
    ok("explain", "m.duckdb", "flowers", "iris.parquet", "--top", "2", "-o", str(why),
       "--row", "70", "--no-progress", cwd=where)
    expected = read(why)
    assert [r[2] for r in got] == expected["feature"].tolist()
    np.testing.assert_allclose([r[4] for r in got], expected["contribution"], rtol=0, atol=1e-12)
