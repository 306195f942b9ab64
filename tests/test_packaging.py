"""The wheel carries the SQL templates, and an installed (non-editable) sqlnb works."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
                   check=True, capture_output=True)
    (path,) = out.glob("sqlnb-*.whl")
    return path


def test_wheel_contains_every_template(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "sql").rglob("*.sql"))
    assert templates, "no templates found in the checkout"
    for template in templates:
        assert f"sqlnb/{template}" in names, template


def test_wheel_marks_the_package_as_typed(wheel):
    # PEP 561: type checkers read sqlnb's annotations only when the marker file ships.
    assert "sqlnb/py.typed" in zipfile.ZipFile(wheel).namelist()


def test_installed_wheel_fits_from_another_directory(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--target", str(target), str(wheel)], check=True)
    script = (
        "import duckdb, sqlnb, pathlib\n"
        "assert pathlib.Path(sqlnb.__file__).parent.parent == pathlib.Path.cwd() / 'site', sqlnb.__file__\n"
        "con = duckdb.connect()\n"
        "con.execute('CREATE TABLE t AS SELECT i % 2 AS y, CAST(i AS DOUBLE) AS x FROM range(10) r(i)')\n"
        "print(sqlnb.NaiveBayes('m', con=con).fit('t', 'y').predict('t').fetchall()[0])\n"
    )
    elsewhere = tmp_path
    result = subprocess.run([sys.executable, "-c", script], cwd=elsewhere, capture_output=True,
                            text=True, env={"PYTHONPATH": str(target), "PATH": ""},
                            check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(0, 0.0, 0)"


def test_wheel_installs_the_sqlnb_console_script(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--target", str(target), str(wheel)], check=True)
    script = target / "bin" / "sqlnb"
    assert script.is_file()
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True,
                            env={"PYTHONPATH": str(target), "PATH": ""}, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "sqlnb, version 0.1.0"
