"""The public API is typed: a program that uses it passes ``mypy --strict``, and a wrong use
is caught (so the checker sees sqlnb's annotations, not ``Any``)."""

from __future__ import annotations

from pathlib import Path

import pytest

mypy_api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parents[1]

USER = '''\
import duckdb

import sqlnb
from sqlnb.errors import InvalidDataError, SqlnbError


def score(path: str) -> list[tuple[object, ...]]:
    con: duckdb.DuckDBPyConnection = sqlnb.connect(path)
    con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i * 1.0 AS x FROM range(10) r(i)")
    model = sqlnb.NaiveBayes("m", con=con, family="gaussian", var_smoothing=1e-9)
    model.fit("t", "y", features=["x"])
    model.partial_fit("t", "y")
    again: sqlnb.NaiveBayes = sqlnb.load(con, "m")
    report = again.evaluate("t")
    models = sqlnb.list_models(con)
    assert again.classes_ and report and models
    try:
        model.forget("t", "y")
    except (InvalidDataError, SqlnbError):
        pass
    return again.predict_proba("t").fetchall()
'''


def mypy(tmp_path: Path, source: str) -> tuple[str, int]:
    (tmp_path / "user.py").write_text(source)
    out, err, status = mypy_api.run([
        "--strict", "--follow-imports=silent", "--no-error-summary",
        "--cache-dir", str(tmp_path / "cache"), str(tmp_path / "user.py")])
    return out + err, status


def test_a_strictly_typed_program_checks_against_the_public_api(tmp_path, monkeypatch):
    monkeypatch.setenv("MYPYPATH", str(ROOT))  # this checkout's sqlnb, whatever is installed
    output, status = mypy(tmp_path, USER)
    assert status == 0, output

    wrong = USER + '\n\ndef wrong(con: duckdb.DuckDBPyConnection) -> int:\n' \
                   '    return sqlnb.load(con, "m")\n'
    output, status = mypy(tmp_path, wrong)
    assert status == 1
    assert 'Incompatible return value type (got "NaiveBayes", expected "int")' in output
