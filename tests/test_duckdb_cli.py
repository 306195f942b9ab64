"""Model files written by sqlnb open in the DuckDB CLI of the ``duckdb-cli`` package (which
may be older than the Python package), and its scoring macros score there."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.naive_bayes import GaussianNB

import sqlnb

ROOT = Path(__file__).resolve().parents[1]
SPECIES = np.array(["setosa", "versicolor", "virginica"])
FEATURES = ["sepal_length", "sepal_width", "petal_length", "petal_width"]


def duckdb_cli_binary() -> Path:
    try:
        import duckdb_cli
    except ImportError:
        pytest.skip("the duckdb-cli package is not installed (it is in the test extras)")
    binary = Path(duckdb_cli.__file__).parent / ("duckdb.exe" if os.name == "nt" else "duckdb")
    if not binary.is_file():  # a source install would download it: not in tests
        pytest.skip("the duckdb-cli package has no bundled binary on this platform")
    return binary


def run_cli(database: Path, statement: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(duckdb_cli_binary()), "-csv", str(database), "-c", statement],
                          capture_output=True, text=True, check=False, cwd=database.parent)


def cli_version() -> tuple[int, ...]:
    out = subprocess.run([str(duckdb_cli_binary()), "--version"], capture_output=True,
                         text=True, check=True).stdout
    return tuple(int(part) for part in out.split()[0].lstrip("v").split(".")[:2])


@pytest.fixture
def iris(tmp_path):
    X, y = load_iris(return_X_y=True)
    pd.DataFrame(X, columns=FEATURES).assign(species=SPECIES[y]).to_parquet(
        tmp_path / "iris.parquet")
    return tmp_path, X, SPECIES[y]


def scored_by_cli(database: Path, model: str) -> pd.DataFrame:
    result = run_cli(database, f"SELECT {model}_predict(t) AS prediction, "
                               f"{model}_predict_proba(t).versicolor AS versicolor "
                               "FROM 'iris.parquet' t")
    assert result.returncode == 0, result.stderr
    return pd.read_csv(io.StringIO(result.stdout))


def test_file_written_by_the_sqlnb_command_scores_in_the_duckdb_cli(iris):
    where, X, y = iris
    fit = subprocess.run([sys.executable, "-m", "sqlnb", "fit", "models.duckdb", "flowers",
                          "iris.parquet", "-t", "species"], cwd=where, check=False,
                         capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert fit.returncode == 0, fit.stderr
    scored = scored_by_cli(where / "models.duckdb", "flowers")
    oracle = GaussianNB().fit(X, y)
    assert scored["prediction"].tolist() == oracle.predict(X).tolist()
    np.testing.assert_allclose(scored["versicolor"], oracle.predict_proba(X)[:, 1], atol=1e-9)


def test_file_opened_with_sqlnb_connect_scores_in_the_duckdb_cli(iris):
    where, X, y = iris
    con = sqlnb.connect(where / "shop.duckdb")
    sqlnb.NaiveBayes("flowers", con=con).fit(str(where / "iris.parquet"), "species")
    con.close()
    scored = scored_by_cli(where / "shop.duckdb", "flowers")
    assert scored["prediction"].tolist() == GaussianNB().fit(X, y).predict(X).tolist()


def test_table_macro_scores_a_parquet_file_in_the_duckdb_cli(iris):
    where, X, y = iris
    con = sqlnb.connect(where / "shop.duckdb")
    sqlnb.NaiveBayes("flowers", con=con).fit(str(where / "iris.parquet"), "species")
    con.close()
    result = run_cli(where / "shop.duckdb",
                     "SELECT prediction FROM flowers_score('iris.parquet')")
    assert result.returncode == 0, result.stderr
    rows = [row["prediction"] for row in csv.DictReader(io.StringIO(result.stdout))]
    assert rows == GaussianNB().fit(X, y).predict(X).tolist()


def test_newest_storage_format_is_what_an_older_cli_cannot_open(iris):
    """Why sqlnb.connect sets the storage version: without it, an older CLI fails."""
    python_version = tuple(int(p) for p in duckdb.__version__.split(".")[:2])
    if cli_version() >= python_version:
        pytest.skip("the DuckDB CLI is as new as the Python package: any file opens")
    where, _, _ = iris
    con = sqlnb.connect(where / "newest.duckdb", storage_version=None)
    sqlnb.NaiveBayes("flowers", con=con).fit(str(where / "iris.parquet"), "species")
    con.close()
    result = run_cli(where / "newest.duckdb", "SELECT 1")
    assert result.returncode != 0
    assert "version" in result.stderr
