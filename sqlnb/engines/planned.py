"""Write-path statements planned once per text on a DuckDB connection.

An incremental update (``partial_fit``, ``forget``) runs the same few statements on every
call: the batch scan, the batch probe, the upsert, the checks. Their text only changes
when the model's structure does (features, classes' type, hyperparameters, origins), and
for a few thousand rows DuckDB spends more time parsing, binding and planning them than
running them. :class:`PlannedScripts` keeps each script's statements ``PREPARE``d, keyed
by the script's full text (plus the schema of the input slot it may read), and runs them
with ``EXECUTE``.

Keying by text keeps this free of staleness: the same text means the same statement, and
DuckDB binds a prepared statement again when the catalog changed since it was planned (a
table dropped and created again, another connection's schema change), so what it reads
is always current. But DuckDB does not keep what it bound again: every later ``EXECUTE``
binds and plans anew (a 2,000-row scan: 6.5 ms instead of 2.8). So the caller says when it
changed the catalog (:meth:`PlannedScripts.catalog_changed`), and a script that reads an
input slot (one run with a ``key``) planned before that is planned again at its first run
with no change since the one before (at its next run after a registration or a rollback);
an update that runs no DDL then runs its scan without planning, and one that runs DDL at
every call (re-creating the scoring macros) does not plan its scan at every call. Other scripts are not
planned again: DuckDB 2.0 keeps the plan only of a statement that reads Arrow input,
such as the scan of the write slot, and binds and optimizes one that reads a DuckDB
table again at every ``EXECUTE`` (preparing it saves its parse: docs/incremental.md), so
planning it again would bind it twice. Statements DuckDB cannot prepare (DDL) run as
they are (and count as a change). The oldest scripts beyond ``LIMIT`` are freed, and all
of them when this object goes, with the temporary tables kept for them
(:meth:`PlannedScripts.keep_table`).

>>> import duckdb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE t AS SELECT 1 AS x")
>>> scripts = PlannedScripts()
>>> scripts.fetch(con, "SELECT sum(x) FROM t")
[(1,)]
>>> _ = con.execute("INSERT INTO t VALUES (41)")
>>> scripts.fetch(con, "SELECT sum(x) FROM t")
[(42,)]
>>> scripts.clear(con)
"""

from __future__ import annotations

import itertools
import os
import threading
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from typing import Any

import duckdb

from ..templates import render

_counter = itertools.count()

# Statement kinds DuckDB can PREPARE (DDL such as CREATE, DROP and ALTER cannot be).
_PREPARABLE = {"SELECT", "INSERT", "UPDATE", "DELETE"}


class PlannedScripts:
    """Scripts (one or more statements) planned once on a connection, run by name after.

    >>> import duckdb
    >>> con, scripts = duckdb.connect(), PlannedScripts()
    >>> scripts.execute(con, "CREATE TEMP TABLE s (x INT); INSERT INTO s VALUES (2)")
    >>> scripts.fetch(con, "SELECT x * 2 FROM s")
    [(4,)]
    """

    LIMIT = 32

    def __init__(self) -> None:
        # script key -> (the catalog generation it was planned in, its statements: (prepared
        # name or None, text, what runs it, whether DDL), the input generation then)
        self._scripts: OrderedDict[
            Hashable, tuple[int, list[tuple[str | None, str, str, bool]], int]] = OrderedDict()
        self._inputs = 0  # changes of registered inputs (see catalog_changed)
        # script key -> the catalog generation after its last run (see _run)
        self._last_run: dict[Hashable, int] = {}
        self._lock = threading.Lock()
        # (name, its DEALLOCATE) of each prepared statement, shared with the finalizer; the
        # DROP of each kept table goes in it too (name None)
        self._names: list[tuple[str | None, str]] = []
        self._finalizer: Any = None
        self._generation = 0

    def catalog_changed(self, inputs: bool = False) -> None:
        """The catalog may have changed (DDL ran): scripts reading an input slot planned
        before are planned again at their first run with no change since the one before,
        so that DuckDB does not bind them again at every run. ``inputs``: a Python object
        was registered or unregistered, or a rollback undid what the transaction made:
        those scripts are planned again at their next run (DuckDB 1.5 would run the old
        plan over what it registered then)."""
        self._generation += 1
        if inputs:
            self._inputs += 1

    @property
    def generation(self) -> int:
        """How many times the catalog may have changed (see :meth:`catalog_changed`)."""
        return self._generation

    def keep_table(self, con: duckdb.DuckDBPyConnection, drop: str) -> None:
        """A temporary table the planned scripts use from call to call: ``drop`` (its DROP)
        runs when this object goes."""
        with self._lock:
            self._names.append((None, drop))
            self._watch(con)

    def execute(self, con: duckdb.DuckDBPyConnection, sql: str, key: Hashable = None) -> None:
        """Run the script ``sql`` (planned the first time); ``key`` adds what the text does
        not tell (the schema of an input slot the script reads)."""
        self._run(con, sql, key)

    def fetch(self, con: duckdb.DuckDBPyConnection, sql: str,
              key: Hashable = None) -> list[tuple]:
        """The rows of the script's last statement (planned the first time)."""
        return self._run(con, sql, key).fetchall()

    def _run(self, con: duckdb.DuckDBPyConnection, sql: str, key: Hashable) -> Any:
        with self._lock:
            full_key = (sql, key)
            entry = self._scripts.get(full_key)
            if (entry is not None and key is not None and entry[0] != self._generation
                    and (self._last_run.get(full_key) == self._generation
                         or entry[2] != self._inputs)):
                # it reads an input slot, and was planned before the catalog changed, which
                # has not changed since its last run: DuckDB would bind it at every run.
                # (Where the catalog changed since its last run too, as it does at every
                # call of an update that re-creates the scoring macros, it runs as
                # planned: planning it again would be paid at every call, for nothing on
                # DuckDB 2.0, which keeps the plan of a statement reading Arrow input, and
                # for more than the one bind DuckDB 1.5 makes after a change. A script
                # reading no slot reads tables, which DuckDB binds at every run whatever
                # was planned: planning it again would bind it twice in a call, and an
                # update whose scan runs DDL at every call, as a file's does, paid that
                # for each statement.)
                del self._scripts[full_key]
                self._free(con, [name for name, _, _, _ in entry[1] if name is not None])
                entry = None
            if entry is None:
                statements, cursor = self._plan_and_run(con, sql)
                self._scripts[full_key] = (self._generation, statements, self._inputs)
                self._last_run[full_key] = self._generation
                while len(self._scripts) > self.LIMIT:
                    gone, (_, old, _) = self._scripts.popitem(last=False)
                    self._last_run.pop(gone, None)
                    self._free(con, [name for name, _, _, _ in old if name is not None])
                return cursor
            self._scripts.move_to_end(full_key)
            cursor: Any = None
            for _, _, run, ddl in entry[1]:
                cursor = con.execute(run)
                if ddl:
                    self._generation += 1
            self._last_run[full_key] = self._generation
            return cursor

    def _plan_and_run(self, con: duckdb.DuckDBPyConnection,
                      sql: str) -> tuple[list[tuple[str | None, str, str, bool]], Any]:
        """Plan each statement of a script and run it before planning the next (a later
        statement may read what an earlier one created)."""
        planned: list[tuple[str | None, str, str, bool]] = []
        cursor: Any = None
        try:
            for statement in con.extract_statements(sql):
                text = statement.query.strip().rstrip(";").rstrip()
                ddl = statement.type.name not in _PREPARABLE
                if ddl:
                    # DDL cannot be prepared: it runs as it is, and changes the catalog
                    planned.append((None, text, text, ddl))
                    cursor = con.execute(text)
                    self._generation += 1
                    continue
                name = f"__sqlnb_planned_{os.getpid()}_{next(_counter)}"
                # a statement may end in a comment: the newline keeps PREPARE's text whole
                con.execute(render("score/prepared.sql#prepare", name=name, statement=text + "\n"))
                self._names.append((name, render("score/prepared.sql#deallocate", name=name)))
                run = render("score/prepared.sql#execute", name=name)
                planned.append((name, text, run, False))
                cursor = con.execute(run)
        except BaseException:
            self._free(con, [name for name, _, _, _ in planned if name is not None])
            raise
        self._watch(con)
        return planned, cursor

    def _watch(self, con: duckdb.DuckDBPyConnection) -> None:
        """Free everything this object planned or kept when it goes (see :class:`Cleanup`)."""
        if self._finalizer is None:
            self._finalizer = weakref.finalize(self, cleanup_for(con).statements, con,
                                               self._names, [])

    def _free(self, con: duckdb.DuckDBPyConnection, names: list[str]) -> None:
        freed = [entry for entry in self._names if entry[0] is not None and entry[0] in names]
        self._names[:] = [entry for entry in self._names if entry not in freed]
        free_all(con, freed)

    def clear(self, con: duckdb.DuckDBPyConnection) -> None:
        """Free every planned statement (and kept table): the next run plans again."""
        with self._lock:
            self._scripts.clear()
            self._last_run.clear()
            free_all(con, self._names)


class Cleanup:
    """What finalizers free on one connection, run only by the thread using it.

    A finalizer runs in whichever thread collects the garbage, and a DuckDB connection
    refuses a call while another thread is in one ("connection is busy") instead of
    waiting: a finalizer that freed its statements from another thread would make the
    thread using the connection fail. So the engine says which thread uses the connection
    at each of its calls (:meth:`enter`); a finalizer running in that thread frees at once,
    one running in any other thread only queues the work (a thread-safe deque), and the
    using thread runs the queue at its next call on the connection. The queue only holds
    names and statements, and is emptied at every call.

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> cleanup = cleanup_for(con)
    >>> _ = con.execute("PREPARE p AS SELECT 42")
    >>> cleanup.statements(con, [("p", "DEALLOCATE PREPARE p")], [])  # no thread entered yet
    >>> len(cleanup.pending)
    1
    >>> cleanup.enter(con)  # the using thread's next call frees it
    >>> len(cleanup.pending)
    0
    """

    __slots__ = ("pending", "thread")

    def __init__(self) -> None:
        # ("sql", statement) or ("view", name), appended from any thread
        self.pending: deque[tuple[str, str]] = deque()
        self.thread: int | None = None  # the thread of the latest call on the connection

    def enter(self, con: duckdb.DuckDBPyConnection) -> None:
        """A call on ``con`` begins in this thread: it is the connection's thread now, and
        runs what finalizers queued."""
        self.thread = threading.get_ident()
        if self.pending:
            self.run_pending(con)

    def statements(self, con: duckdb.DuckDBPyConnection,
                   names: list[tuple[str | None, str]], views: list[str]) -> None:
        """A finalizer's work: run the statements of ``names`` (DEALLOCATE, DROP) and drop
        the ``views``, now if this is the connection's thread and it is not inside one of
        sqlnb's statements (see :func:`running`), else when that statement is done or at
        the connection's next call."""
        work = [("sql", names.pop()[1]) for _ in range(len(names))]
        work += [("view", views.pop()) for _ in range(len(views))]
        self.pending.extend(work)
        if threading.get_ident() == self.thread:
            if getattr(_running, "depth", 0):
                _running.deferred = getattr(_running, "deferred", []) + [(self, con)]
            else:
                self.run_pending(con)

    def view(self, con: duckdb.DuckDBPyConnection, name: str) -> None:
        """A finalizer's work: drop the view ``name`` (see :meth:`statements`)."""
        self.statements(con, [], [name])

    def run_pending(self, con: duckdb.DuckDBPyConnection) -> None:
        """Run the queued work on ``con`` (in the connection's thread)."""
        while self.pending:
            try:
                kind, text = self.pending.popleft()
            except IndexError:  # emptied meanwhile
                return
            try:
                if kind == "view":
                    con.unregister(text)
                else:
                    con.sql(text)
            except _BUSY:
                # a finalizer run inside a call of this very thread (garbage collected
                # while DuckDB called back into Python): the next call runs it
                self.pending.appendleft((kind, text))
                return
            except duckdb.Error:
                pass  # nothing left to free (the connection was closed)


# What DuckDB raises for a call on a connection already in a call of its own thread (2.0;
# 1.5 has no such exception: there the call blocks, which ``running`` prevents).
_BUSY: Any = getattr(duckdb, "ResourceInUseException", ())

_cleanups: weakref.WeakKeyDictionary[Any, Cleanup] = weakref.WeakKeyDictionary()
_cleanups_lock = threading.Lock()


def cleanup_for(con: duckdb.DuckDBPyConnection) -> Cleanup:
    """The :class:`Cleanup` of ``con`` (one per connection object, gone with it)."""
    with _cleanups_lock:
        cleanup = _cleanups.get(con)
        if cleanup is None:
            cleanup = _cleanups[con] = Cleanup()
        return cleanup


# How deep each thread is in statements sqlnb runs (see ``running``), and the cleanups a
# finalizer queued meanwhile in that thread, run when the outermost statement is done.
_running = threading.local()


def running(call: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate an engine method that runs statements on a DuckDB connection. Garbage
    collection during it (DuckDB calls into Python to read a pandas frame or an Arrow
    stream) must not use the connection: calling a connection from inside its own
    statement blocks it for good (DuckDB 1.5) or fails (DuckDB 2.0). So a finalizer
    running then only queues its work (:meth:`Cleanup.statements`), and the work runs
    when the outermost such call returns."""
    def run(*args: Any, **kwargs: Any) -> Any:
        depth = getattr(_running, "depth", 0)
        _running.depth = depth + 1
        try:
            return call(*args, **kwargs)
        finally:
            _running.depth = depth
            if not depth:
                settle()
    run.__name__, run.__qualname__, run.__doc__ = call.__name__, call.__qualname__, call.__doc__
    run.__wrapped__ = call  # type: ignore[attr-defined]
    return run


def settle() -> None:
    """Run what finalizers queued in this thread during sqlnb's statements."""
    deferred = getattr(_running, "deferred", None)
    if not deferred:
        return
    _running.deferred = []
    for cleanup, con in deferred:
        cleanup.run_pending(con)


def free_all(con: duckdb.DuckDBPyConnection, names: list[tuple[str | None, str]]) -> None:
    """Deallocate prepared statements and drop kept tables (nothing left to free if the
    connection was closed)."""
    while names:
        _, deallocate = names.pop()
        try:
            # a relation-API call: leaves the connection's pending DB-API result alone
            con.sql(deallocate)
        except duckdb.Error:
            pass


class InputSlot:
    """The input of planned statements: a view registered over this object, whose table is
    swapped per call. DuckDB reads an object with the Arrow C stream interface afresh at
    each execution, so a plan made over one table serves every table of the same schema put
    here (registering a new object under the name would leave the plan reading the old
    one)."""

    def __init__(self) -> None:
        self.table: Any = None
        self.name: str | None = None
        self.registered = False  # whether the view over it exists

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self.table.__arrow_c_stream__(requested_schema)


def unregister(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Drop the view of a registered object (nothing left if the connection was closed)."""
    try:
        con.unregister(name)
    except duckdb.Error:
        pass
