"""The engine: the only thing in sqlnb that talks to a database.

Everything above this module renders SQL from templates and hands it to an :class:`Engine`;
it never touches a connection. An engine runs statements (``execute``), reads small
results (``fetch``), returns lazy results (``relation``), turns what a user passes as
input into something a statement can select from (``source``), groups statements into one
atomic unit (``transaction``), and says how its SQL is spelt (``dialect``) and what it can
do (``capabilities``). :func:`engine_for` picks the engine from the connection object.

>>> import duckdb
>>> engine = engine_for(duckdb.connect())
>>> with engine.transaction():
...     engine.execute("CREATE TABLE t AS SELECT 1 AS x")
>>> engine.fetch("SELECT x FROM t")
[(1,)]
>>> engine.source("t").columns
{'x': 'INTEGER'}
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import duckdb

from .dialect import DUCKDB, Dialect
from .source import Source, resolve
from .templates import render


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do, for the few places where the flow depends on it."""

    upsert: bool = True             # INSERT ... ON CONFLICT DO UPDATE (else: a MERGE shape)
    transactions: bool = True       # BEGIN/COMMIT/ROLLBACK around a fit
    stored_functions: bool = True   # scoring macros persisted in the database
    temp_tables: bool = True        # CREATE TEMP TABLE for batches


class Engine:
    """The interface every engine implements (see :class:`DuckDBEngine`)."""

    dialect: Dialect
    capabilities: Capabilities
    # What reading a relation that does not exist raises.
    missing_relation_errors: tuple[type[Exception], ...] = ()

    def render(self, template: str, **context: Any) -> str:
        """``sql/<template>`` rendered in this engine's dialect."""
        return render(template, dialect=self.dialect, **context)

    def execute(self, sql: str) -> None:
        raise NotImplementedError

    def fetch(self, sql: str) -> list[tuple]:
        raise NotImplementedError

    def fetch_with_names(self, sql: str) -> tuple[list[str], list[tuple]]:
        """The rows of ``sql`` and its column names."""
        raise NotImplementedError

    def relation(self, sql: str) -> Any:
        """A lazy result: nothing runs until the caller materialises it."""
        raise NotImplementedError

    def source(self, obj: Any) -> Source:
        raise NotImplementedError

    def release(self, source: Source) -> None:
        """Forget what ``source`` registered (when no lazy result still reads it)."""

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic unit: committed when the block ends, rolled back if it raises."""
        raise NotImplementedError
        yield  # pragma: no cover

    @contextlib.contextmanager
    def rolled_back(self) -> Iterator[None]:
        """A transaction that is always rolled back (a dry run); inner ones join it."""
        raise NotImplementedError
        yield  # pragma: no cover


class DuckDBEngine(Engine):
    """An engine over a DuckDB connection."""

    dialect = DUCKDB
    capabilities = Capabilities()
    missing_relation_errors = (duckdb.CatalogException,)

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self.connection = connection
        self._depth = 0

    def execute(self, sql: str) -> None:
        self.connection.execute(sql)

    def fetch(self, sql: str) -> list[tuple]:
        return self.connection.execute(sql).fetchall()

    def fetch_with_names(self, sql: str) -> tuple[list[str], list[tuple]]:
        cursor = self.connection.execute(sql)
        return [d[0] for d in cursor.description], cursor.fetchall()

    def relation(self, sql: str) -> duckdb.DuckDBPyRelation:
        return self.connection.sql(sql)

    def source(self, obj: Any) -> Source:
        return resolve(self.connection, obj)

    def release(self, source: Source) -> None:
        source.release(self.connection)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic unit: committed when the block ends, rolled back if it raises.

        A transaction opened inside another one of the same engine joins it, so a step
        that is atomic on its own (recreating the scoring macros) is part of a fit's.
        """
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self.connection.begin()
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            self.connection.rollback()
            raise
        self._depth = 0
        self.connection.commit()

    @contextlib.contextmanager
    def rolled_back(self) -> Iterator[None]:
        self.connection.begin()
        self._depth = 1
        try:
            yield
        finally:
            self._depth = 0
            self.connection.rollback()


class RecordingEngine(Engine):
    """Runs every statement on another engine and keeps the ones that write.

    ``fit_sql`` runs a fit on it inside :meth:`Engine.rolled_back`: reads see what the
    recorded writes produced (so every kind of model records the same way), and the
    database is left as it was.
    """

    def __init__(self, inner: Engine) -> None:
        self.inner = inner
        self.dialect = inner.dialect
        self.capabilities = inner.capabilities
        self.missing_relation_errors = inner.missing_relation_errors
        self.statements: list[str] = []

    @property
    def connection(self) -> Any:
        return self.inner.connection

    def execute(self, sql: str) -> None:
        self.statements.append(sql)
        self.inner.execute(sql)

    def fetch(self, sql: str) -> list[tuple]:
        return self.inner.fetch(sql)

    def fetch_with_names(self, sql: str) -> tuple[list[str], list[tuple]]:
        return self.inner.fetch_with_names(sql)

    def relation(self, sql: str) -> Any:
        return self.inner.relation(sql)

    def source(self, obj: Any) -> Source:
        return self.inner.source(obj)

    def release(self, source: Source) -> None:
        self.inner.release(source)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        yield  # the recording runs inside one rolled-back transaction


def engine_for(con: Any) -> Engine:
    """The engine for a user's connection object (``None``: a private in-memory DuckDB)."""
    if isinstance(con, Engine):
        return con
    if con is None:
        return DuckDBEngine(duckdb.connect())
    if isinstance(con, duckdb.DuckDBPyConnection):
        return DuckDBEngine(con)
    from .errors import InvalidParameterError

    raise InvalidParameterError(
        f"con must be a DuckDB connection (duckdb.connect(...)) or None, "
        f"got {type(con).__name__}"
    )
