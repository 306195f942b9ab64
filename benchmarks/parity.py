"""Parity table: sqlnb's scikit-learn facade against scikit-learn on the bundled datasets.

For every family and dataset (discretised for the count families, as in the tests) it
records whether predictions are identical and the largest absolute difference of
predict_proba, unweighted and with random sample weights. Run:

    python benchmarks/parity.py            # writes benchmarks/results/parity.md
"""

from __future__ import annotations

import platform
from pathlib import Path

import duckdb
import numpy as np
import sklearn
from sklearn import naive_bayes as reference
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

import sqlnb
import sqlnb.sklearn as ours

DATASETS = {"iris": load_iris, "wine": load_wine, "breast_cancer": load_breast_cancer,
            "digits": load_digits}
FAMILIES = ["GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB"]


def prepare(name: str, X: np.ndarray) -> np.ndarray:
    if name in ("GaussianNB", "BernoulliNB"):
        return X
    span = X.max(axis=0) - X.min(axis=0)
    span[span == 0] = 1
    return np.floor((X - X.min(axis=0)) / span * (5 - 1e-9)).astype(np.int64)


def compare(name: str, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None):
    kwargs = {} if weights is None else {"sample_weight": weights}
    params = {"binarize": float(np.median(X))} if name == "BernoulliNB" else {}
    expected = getattr(reference, name)(**params).fit(X, y, **kwargs)
    actual = getattr(ours, name)(**params).fit(X, y, **kwargs)
    same = bool(np.array_equal(expected.predict(X), actual.predict(X)))
    diff = float(np.abs(expected.predict_proba(X) - actual.predict_proba(X)).max())
    return same, diff


def main() -> None:
    rng = np.random.default_rng(0)
    lines = [
        "## Parity with scikit-learn",
        "",
        (f"sqlnb {sqlnb.__version__}, scikit-learn {sklearn.__version__}, "
        f"DuckDB {duckdb.__version__}, Python {platform.python_version()}, {platform.machine()}. "
        "Max |predict_proba difference| over all rows and classes; predictions compared "
        "for identity. Count families use each feature discretised into 5 levels."),
        "",
        ("| family | dataset | identical predictions | max abs diff | weighted: identical | "
        "weighted: max abs diff |"),
        "|---|---|---|---|---|---|",
    ]
    for name in FAMILIES:
        for dataset, loader in DATASETS.items():
            X, y = loader(return_X_y=True)
            X = prepare(name, X)
            weights = rng.uniform(0.05, 4.0, size=len(y))
            same, diff = compare(name, X, y, None)
            wsame, wdiff = compare(name, X, y, weights)
            lines.append(f"| {name} | {dataset} | {same} | {diff:.1e} | {wsame} | {wdiff:.1e} |")
    out = Path(__file__).parent / "results" / "parity.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
