"""The README's promises hold: its first example runs, and CI runs its test command."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_the_first_example_runs_and_fits_a_useful_model(tmp_path, monkeypatch, capsys):
    script = tmp_path / "first_model.py"
    script.write_text(README.split("```python\n", 1)[1].split("```", 1)[0])
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(script))
    out = capsys.readouterr().out
    accuracy = float(re.search(r"^(0\.\d+)$", out, re.MULTILINE).group(1))
    assert 0.9 < accuracy <= 1.0
    assert "churns" in out  # the SQL macro scored the table
    assert (tmp_path / "shop.duckdb").exists() and (tmp_path / "scored.parquet").exists()


def test_ci_runs_the_readme_test_command():
    command = "python3 -m pip install -e '.[test]' && python3 -m pytest -q"
    assert f"```bash\n# install the test extras and run the tests\n{command}\n```" in README
    assert f"\n{command}\n" in (ROOT / ".ci" / "run").read_text()


def test_the_quickstart_command_names_a_file_that_exists():
    command = "python3 -m pip install . && python3 examples/quickstart.py"
    assert f"\n{command}\n" in README
    assert (ROOT / "examples" / "quickstart.py").is_file()
