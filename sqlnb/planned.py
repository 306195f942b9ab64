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
is always current. Statements DuckDB cannot prepare (DDL) run as they are. The oldest
scripts beyond ``LIMIT`` are freed, and all of them when this object goes.

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
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

import duckdb

from .templates import render

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
        # script key -> its statements: (prepared name or None, text)
        self._scripts: OrderedDict[Hashable, list[tuple[str | None, str]]] = OrderedDict()
        self._lock = threading.Lock()
        # (name, its DEALLOCATE) of each prepared statement, shared with the finalizer
        self._names: list[tuple[str, str]] = []
        self._finalizer: Any = None

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
            statements = self._scripts.get(full_key)
            if statements is None:
                statements, cursor = self._plan_and_run(con, sql)
                self._scripts[full_key] = statements
                while len(self._scripts) > self.LIMIT:
                    _, old = self._scripts.popitem(last=False)
                    self._free(con, [name for name, _ in old if name is not None])
                return cursor
            self._scripts.move_to_end(full_key)
            cursor: Any = None
            for name, text in statements:
                if name is None:
                    cursor = con.execute(text)
                else:
                    cursor = con.execute(render("execute_prepared.sql", name=name))
            return cursor

    def _plan_and_run(self, con: duckdb.DuckDBPyConnection,
                      sql: str) -> tuple[list[tuple[str | None, str]], Any]:
        """Plan each statement of a script and run it before planning the next (a later
        statement may read what an earlier one created)."""
        planned: list[tuple[str | None, str]] = []
        cursor: Any = None
        try:
            for statement in con.extract_statements(sql):
                text = statement.query.strip().rstrip(";").rstrip()
                if statement.type.name not in _PREPARABLE:
                    planned.append((None, text))
                    cursor = con.execute(text)
                    continue
                name = f"__sqlnb_planned_{os.getpid()}_{next(_counter)}"
                # a statement may end in a comment: the newline keeps PREPARE's text whole
                con.execute(render("prepare.sql", name=name, statement=text + "\n"))
                self._names.append((name, render("deallocate.sql", name=name)))
                planned.append((name, text))
                cursor = con.execute(render("execute_prepared.sql", name=name))
        except BaseException:
            self._free(con, [name for name, _ in planned if name is not None])
            raise
        if self._finalizer is None:
            self._finalizer = weakref.finalize(self, free_all, con, self._names)
        return planned, cursor

    def _free(self, con: duckdb.DuckDBPyConnection, names: list[str]) -> None:
        freed = [entry for entry in self._names if entry[0] in names]
        self._names[:] = [entry for entry in self._names if entry[0] not in names]
        free_all(con, freed)

    def clear(self, con: duckdb.DuckDBPyConnection) -> None:
        """Free every planned statement: the next run plans again."""
        with self._lock:
            self._scripts.clear()
            free_all(con, self._names)


def free_all(con: duckdb.DuckDBPyConnection, names: list[tuple[str, str]]) -> None:
    """Deallocate prepared statements (nothing left to free if the connection was closed)."""
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

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self.table.__arrow_c_stream__(requested_schema)


def unregister(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Drop the view of a registered object (nothing left if the connection was closed)."""
    try:
        con.unregister(name)
    except duckdb.Error:
        pass
