"""Progress bars: drawn from DuckDB's query progress on a terminal (a pseudo-terminal
here), never when the output is not a terminal."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[1]
ROWS = 6_000_000  # a scan long enough for DuckDB to report its progress at least once
PERCENT = re.compile(r"\b(\d{1,3})%")


@pytest.fixture(scope="module")
def database(tmp_path_factory) -> Path:
    """A database with a table of generated rows, long enough to scan. A table, not a view
    over ``range()``: DuckDB 1.5 reports no progress for a ``range()`` scan (0, then -1),
    while every release reports it for a table scan."""
    path = tmp_path_factory.mktemp("progress") / "big.duckdb"
    con = duckdb.connect(str(path))
    con.execute(f"""
        CREATE TABLE big AS
        SELECT i % 3 AS y, (hash(i) % 1000) / 1000.0 + i % 3 AS a,
               (hash(i + 1) % 1000) / 1000.0 AS b
        FROM range({ROWS}) r(i)
    """)
    con.close()
    return path


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": "100",
            "SQLNB_PROGRESS_DELAY": "0"}


def on_terminal(args: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``args`` with a pseudo-terminal as stdin, stdout and stderr; its screen output."""
    master, slave = pty.openpty()
    process = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
                               env=environment(), close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # the terminal closed: the process has exited
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return process.wait(timeout=120), b"".join(chunks).decode(errors="replace")


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "sqlnb", *args]


def test_fit_on_a_terminal_shows_a_bar_with_percentages(database):
    status, screen = on_terminal(cli("fit", database.name, "m", "big", "-t", "y"),
                                 database.parent)
    assert status == 0, screen
    assert "fit m" in screen  # the bar's description
    percents = [int(p) for p in PERCENT.findall(screen)]
    assert percents and all(0 <= p <= 100 for p in percents)
    assert max(percents) > 0  # DuckDB reported progress during the scan
    assert f"fitted m (gaussian): 3 classes, {ROWS} rows" in screen


def test_fit_not_on_a_terminal_prints_no_bar(database):
    result = subprocess.run(cli("fit", database.name, "quiet", "big", "-t", "y"),
                            cwd=database.parent, env=environment(), capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.startswith(f"fitted quiet (gaussian): 3 classes, {ROWS} rows")
    assert result.stdout.count("\n") == 1


def test_no_progress_option_keeps_a_terminal_quiet(database):
    status, screen = on_terminal(cli("fit", database.name, "m2", "big", "-t", "y",
                                     "--no-progress"), database.parent)
    assert status == 0, screen
    assert "fit m2" not in screen
    assert not PERCENT.search(screen)


def test_predictions_written_to_a_file_show_a_bar(database):
    on_terminal(cli("fit", database.name, "p", "big", "-t", "y", "--no-progress"),
                database.parent)
    status, screen = on_terminal(cli("predict", database.name, "p", "big", "-o",
                                     "scored.parquet"), database.parent)
    assert status == 0, screen
    assert "predict p" in screen
    assert PERCENT.search(screen)
    assert duckdb.sql(f"SELECT count(*) FROM '{database.parent / 'scored.parquet'}'"
                      ).fetchall() == [(ROWS,)]


@pytest.mark.parametrize("progress", [True, False])
def test_python_api_progress_option(database, progress):
    """progress=False shows no progress at all: DuckDB's own bar (on by default on a
    terminal, for statements longer than its progress_bar_time) is off during the call,
    and the connection's setting is as the user left it afterwards. progress_bar_time is
    lowered to 0.25 s so that the fit's scan of millions of rows would show DuckDB's bar
    whatever the load; a slower machine only makes that surer (sqlnb's own statements
    around the call last microseconds)."""
    script = (
        "import duckdb, sqlnb\n"
        f"con = duckdb.connect({str(database)!r})\n"
        "con.execute('SET progress_bar_time = 250')\n"
        f"model = sqlnb.NaiveBayes('api', con=con, progress={progress})\n"
        "print('<call>', flush=True)\n"
        "model.fit('big', 'y')\n"
        "print('</call>', flush=True)\n"
        "print('printed bar:', con.execute(\"SELECT current_setting("
        "'enable_progress_bar_print')\").fetchone()[0])\n"
    )
    status, screen = on_terminal([sys.executable, "-c", script], database.parent)
    assert status == 0, screen
    call = screen.split("<call>")[1].split("</call>")[0]  # the output during the call
    assert ("fit api" in call) is progress
    assert bool(PERCENT.search(call)) is progress
    assert "printed bar: True" in screen


def test_duckdb_prints_its_own_bar_outside_sqlnb_calls(database):
    """(What the test above guards against is there: on this terminal, DuckDB prints its
    own percentages, here for every statement.)"""
    script = (
        "import duckdb\n"
        f"con = duckdb.connect({str(database)!r})\n"
        "con.execute('SET progress_bar_time = 0')\n"
        "con.execute('SELECT y, sum(a), sum(b * b) FROM big GROUP BY y').fetchall()\n"
    )
    status, screen = on_terminal([sys.executable, "-c", script], database.parent)
    assert status == 0, screen
    assert PERCENT.search(screen)


def test_ctrl_c_during_a_fit_takes_the_abort_path(tmp_path):
    """Ctrl-C while DuckDB runs the fit's scan: DuckDB stops the query with an error of its
    own, which the command treats as the interruption it is (exit 130, model unchanged)."""
    path = tmp_path / "endless.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE VIEW endless AS SELECT i % 3 AS y, i * 0.5 AS a "
                "FROM range(10000000000) r(i)")  # a scan that does not end by itself
    con.close()
    master, slave = pty.openpty()
    process = subprocess.Popen(cli("fit", path.name, "m", "endless", "-t", "y"), stdin=slave,
                               stdout=slave, stderr=slave, cwd=tmp_path, env=environment(),
                               close_fds=True)
    os.close(slave)
    screen = b""
    try:
        while b"fit m" not in screen:  # the bar is drawn: the fit is running
            ready, _, _ = select.select([master], [], [], 60)
            assert ready, screen
            screen += os.read(master, 4096)
        time.sleep(1.0)  # well into the scan (the wait decides nothing the test asserts)
        while select.select([master], [], [], 0)[0]:
            screen += os.read(master, 4096)
        process.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # read on, or the bar's writes would block it
            if select.select([master], [], [], 0.2)[0]:
                try:
                    data = os.read(master, 4096)
                except OSError:  # the terminal closed: the process has exited
                    data = b""
                screen += data
                if data:
                    continue
            if process.poll() is not None:
                break
        status = process.wait(timeout=1)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    text = screen.decode(errors="replace")
    assert status == 130, text
    assert "sqlnb: aborted" in text and "Query interrupted" not in text
    con = duckdb.connect(str(path), read_only=True)
    assert con.sql("SELECT table_name FROM information_schema.tables").fetchall() == [
        ("endless",)]
