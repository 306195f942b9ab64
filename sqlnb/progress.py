"""Progress bars for long scans, from DuckDB's own query progress.

DuckDB estimates how far the running query is (``query_progress()``, a percentage). While
a block of sqlnb work runs, :func:`track` reads that estimate from a background thread and
draws a Rich progress bar on standard error, so standard output stays clean for data. It
draws nothing when standard error is not an interactive terminal (or notebook), and
nothing for work shorter than ``delay`` seconds.

The models take ``progress=True`` (``NaiveBayes("m", con=con, progress=True)``) to track
their fits, incremental fits, unlearning and evaluations; anything else, such as writing
predictions to a file, can be wrapped by hand:

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> with sqlnb.progress.track(con, "counting"):
...     con.sql("SELECT count(*) FROM range(1000)").fetchall()
[(1000,)]

Rich is part of the ``cli`` extra (``pip install 'sqlnb[cli]'``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import duckdb

from .errors import InvalidParameterError
from .templates import render

# Seconds of work before a bar appears (the environment variable SQLNB_PROGRESS_DELAY
# overrides it, e.g. 0 to see a bar for every call).
DELAY = float(os.environ.get("SQLNB_PROGRESS_DELAY", "0.5"))
POLL = 0.1  # seconds between two readings of the query's progress
_tracking: set[int] = set()  # connections with a bar already (nested calls draw one bar)


def console(stderr: bool = True) -> Any:
    """The Rich console progress bars are drawn on (standard error by default)."""
    try:
        from rich.console import Console
    except ImportError:  # pragma: no cover - rich is in the cli and test extras
        raise InvalidParameterError(
            "progress bars need Rich: pip install 'sqlnb[cli]'"
        ) from None
    return Console(stderr=stderr)


def interactive(target: Any) -> bool:
    """Whether a Rich console is a terminal or a notebook a bar can redraw in place."""
    return bool(target.is_terminal or target.is_jupyter)


@contextlib.contextmanager
def track(con: duckdb.DuckDBPyConnection, description: str = "working", *,
          enabled: bool = True, delay: float | None = None, target: Any = None
          ) -> Iterator[None]:
    """Show a bar of the running query's progress while the ``with`` block runs.

    ``enabled=False`` or a non-interactive console draws nothing. The percentage is the
    one of the statement running at that moment (a fit runs a few: the main scan is the
    long one). DuckDB's own printed bar is switched off for the block either way (with
    ``enabled=False`` nothing shows progress) and the connection's setting restored after.
    """
    if not enabled or id(con) in _tracking:
        with quiet(con):
            yield
        return
    target = console() if target is None else target
    if not interactive(target):
        with quiet(con):
            yield
        return
    _tracking.add(id(con))
    from rich.progress import (
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    delay = DELAY if delay is None else delay
    before = con.execute(render("catalog/database.sql#progress_settings")).fetchall()[0]
    con.execute(render("catalog/database.sql#set_progress", enabled=True, printed=False))
    bar = Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                   TimeElapsedColumn(), console=target, transient=True)
    done = threading.Event()

    def watch() -> None:
        started = time.monotonic()
        task = None
        while not done.wait(POLL):
            if task is None:
                if time.monotonic() - started < delay:
                    continue
                bar.start()
                task = bar.add_task(description, total=100.0)
            percent = con.query_progress()
            if percent >= 0:
                bar.update(task, completed=min(percent, 100.0))
        if task is not None:
            bar.stop()

    watcher = threading.Thread(target=watch, name="sqlnb-progress", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        _tracking.discard(id(con))
        con.execute(render("catalog/database.sql#set_progress",
                           enabled=_as_bool(before[0]), printed=_as_bool(before[1])))


# Connections whose printed bar quiet() has switched off: id -> [blocks inside, setting
# before] (nested and concurrent calls on one connection restore it once, at the end).
_quieted: dict[int, list[Any]] = {}
_quiet_lock = threading.Lock()


@contextlib.contextmanager
def quiet(con: Any) -> Iterator[None]:
    """DuckDB's own printed progress bar off while the block runs (it prints percentages
    on a terminal for statements longer than its ``progress_bar_time``), then the
    connection's setting as it was. Anything but a DuckDB connection is left alone."""
    if not isinstance(con, duckdb.DuckDBPyConnection):
        yield
        return
    key = id(con)
    with _quiet_lock:
        entry = _quieted.get(key)
        if entry is None:
            try:
                # (nothing is printed while the bar itself is off: then nothing to switch)
                printed = all(_as_bool(setting) for setting in con.execute(
                    render("catalog/database.sql#progress_settings")).fetchall()[0])
                if printed:
                    con.execute(render("catalog/database.sql#set_progress", printed=False))
            except duckdb.Error:  # closed, or a failed transaction: the call will say so
                printed = False
            entry = _quieted[key] = [0, printed]
        entry[0] += 1
    try:
        yield
    finally:
        with _quiet_lock:
            entry[0] -= 1
            if entry[0] == 0:
                del _quieted[key]
                if entry[1]:
                    with contextlib.suppress(duckdb.Error):
                        con.execute(render("catalog/database.sql#set_progress",
                                           printed=True))


def _as_bool(setting: Any) -> bool:
    return setting if isinstance(setting, bool) else str(setting).lower() == "true"


def tracked(action: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a model method: a bar while it runs when the model has ``progress=True``."""
    def decorate(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def run(model: Any, *args: Any, **kwargs: Any) -> Any:
            with track(model.con, f"{action} {model.name}",
                       enabled=bool(getattr(model, "progress", False))):
                return method(model, *args, **kwargs)
        return run
    return decorate


def silence_duckdb(con: duckdb.DuckDBPyConnection) -> None:
    """Switch off the bar DuckDB itself prints on standard output (the CLI's stdout is data)."""
    before = con.execute(render("catalog/database.sql#progress_settings")).fetchall()[0]
    con.execute(render("catalog/database.sql#set_progress", enabled=_as_bool(before[0]),
                       printed=False))
