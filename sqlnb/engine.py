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
from .errors import (
    ConflictError,
    InvalidParameterError,
    ReadOnlyError,
    TransactionError,
    UnsupportedError,
)
from .source import Source, held_by, resolve
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
    # What reading a relation that does not exist, or lacks a column read, raises.
    unreadable_errors: tuple[type[Exception], ...] = ()

    def render(self, template: str, **context: Any) -> str:
        """``sql/<template>`` rendered in this engine's dialect."""
        return render(template, dialect=self.dialect, **context)

    def execute(self, sql: str) -> None:
        raise NotImplementedError

    def fetch(self, sql: str, parameters: list[Any] | None = None) -> list[tuple]:
        """The rows of ``sql`` (with bound ``parameters``, ``$n`` or ``?``, if any)."""
        raise NotImplementedError

    def fetch_with_names(self, sql: str) -> tuple[list[str], list[tuple]]:
        """The rows of ``sql`` and its column names."""
        raise NotImplementedError

    def relation(self, sql: str) -> Any:
        """A lazy result: nothing runs until the caller materialises it."""
        raise NotImplementedError

    def source(self, obj: Any) -> Source:
        raise NotImplementedError

    def lazy(self, source: Source, sql: str, parameters: list[Any] | None = None) -> Any:
        """The lazy result of ``sql`` (a statement reading ``source``, with bound
        ``parameters`` if any); what ``source`` registered lives exactly as long as it."""
        raise NotImplementedError

    def hold(self, result: Any, *sources: Source) -> Any:
        """``result``, holding what ``sources`` registered for exactly as long as it lives."""
        raise NotImplementedError

    def release(self, source: Source) -> None:
        """Forget what ``source`` registered (when no lazy result still reads it)."""

    def in_transaction(self) -> bool:
        """Whether a transaction is open on the connection (the caller's or ours)."""
        raise NotImplementedError

    def refuse_open_transaction(self, what: str = "this call", *, scratch: bool = False) -> None:
        """Raise ``TransactionError`` if the caller has a transaction open, and
        ``ReadOnlyError`` if the database cannot be written (unless the work only writes
        ``scratch`` tables, which a read-only database allows)."""
        raise NotImplementedError

    @contextlib.contextmanager
    def transaction(self, what: str = "this call", *, join: bool = False) -> Iterator[None]:
        """One atomic unit: committed when the block ends, rolled back if it raises.

        A caller's open transaction is refused (``TransactionError``, nothing touched),
        unless ``join``: work that leaves nothing behind then runs inside it."""
        raise NotImplementedError
        yield  # pragma: no cover

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """The block's reads see one snapshot of the database (a read transaction)."""
        raise NotImplementedError
        yield  # pragma: no cover

    @contextlib.contextmanager
    def rolled_back(self, what: str = "this call") -> Iterator[None]:
        """A transaction that is always rolled back (a dry run); inner ones join it."""
        raise NotImplementedError
        yield  # pragma: no cover


class DuckDBEngine(Engine):
    """An engine over a DuckDB connection."""

    dialect = DUCKDB
    capabilities = Capabilities()
    missing_relation_errors = (duckdb.CatalogException,)
    unreadable_errors = (duckdb.CatalogException, duckdb.BinderException)

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self.connection = connection
        self._depth = 0

    def execute(self, sql: str) -> None:
        self.connection.execute(sql)

    def fetch(self, sql: str, parameters: list[Any] | None = None) -> list[tuple]:
        return self.connection.execute(sql, parameters).fetchall()

    def fetch_with_names(self, sql: str) -> tuple[list[str], list[tuple]]:
        cursor = self.connection.execute(sql)
        return [d[0] for d in cursor.description], cursor.fetchall()

    def relation(self, sql: str) -> duckdb.DuckDBPyRelation:
        return self.connection.sql(sql)

    def source(self, obj: Any) -> Source:
        return resolve(self.connection, obj)

    def lazy(self, source: Source, sql: str,
             parameters: list[Any] | None = None) -> duckdb.DuckDBPyRelation:
        if parameters is None:
            return source.lazy(self.connection, sql)
        return source.lazy_bound(self.connection, sql, parameters)

    def hold(self, result: duckdb.DuckDBPyRelation, *sources: Source) -> duckdb.DuckDBPyRelation:
        return held_by(result, self.connection, *sources)

    def release(self, source: Source) -> None:
        source.release(self.connection)

    def read_only(self) -> bool:
        """Whether the connection's database was opened read-only."""
        return self.fetch(self.render("read_only.sql")) == [(True,)]

    def in_transaction(self) -> bool:
        """Whether ``BEGIN`` is in force: in auto-commit mode every statement runs in a
        transaction of its own, so two reads of the transaction id differ."""
        first = self.fetch("SELECT txid_current()")[0][0]
        return first == self.fetch("SELECT txid_current()")[0][0]

    def refuse_open_transaction(self, what: str = "this call", *, scratch: bool = False) -> None:
        """Raise ``TransactionError`` if the caller has a transaction open (DuckDB has no
        savepoints: our BEGIN would fail, our COMMIT or ROLLBACK would end theirs), and
        ``ReadOnlyError`` if the database was opened read-only (before any statement
        fails), unless the work only writes ``scratch`` (temporary) tables."""
        if self._depth:
            return
        if not scratch and self.read_only():
            raise ReadOnlyError(
                f"{what} writes the model's tables, and this database was opened read-only: "
                "open it with duckdb.connect(path) (read_only=False) to write, or only read "
                "(predict*, evaluate, to_sql) on this connection"
            )
        if self.in_transaction():
            raise TransactionError(
                f"{what} writes in a transaction of its own, and this connection has an open "
                "transaction (DuckDB cannot nest them): commit or roll back first"
            )

    @contextlib.contextmanager
    def _joined(self) -> Iterator[None]:
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    @contextlib.contextmanager
    def transaction(self, what: str = "this call", *, join: bool = False) -> Iterator[None]:
        """One atomic unit: committed when the block ends, rolled back if it raises.

        A transaction opened inside another one of the same engine joins it, so a step
        that is atomic on its own (recreating the scoring macros) is part of a fit's. A
        transaction the caller left open is refused before anything runs
        (``TransactionError``), unless ``join`` (work that leaves nothing behind, such as
        a scratch table dropped at the end): the block then runs inside it.
        """
        if self._depth or (join and self.in_transaction()):
            with self._joined():
                yield
            return
        self.refuse_open_transaction(what, scratch=join)
        self.connection.begin()
        self._depth = 1
        try:
            yield
        except BaseException as exc:
            self._depth = 0
            self.connection.rollback()
            if isinstance(exc, duckdb.TransactionException):
                raise _conflict(what, exc) from exc
            raise
        self._depth = 0
        try:
            self.connection.commit()
        except duckdb.TransactionException as exc:  # a conflict found at commit time
            raise _conflict(what, exc) from exc

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """The block's reads in one read transaction, rolled back at the end: each
        statement sees the database as it was when the block began. Inside an open
        transaction (the caller's or a fit's) the reads simply join it."""
        if self._depth or self.in_transaction():
            with self._joined():
                yield
            return
        with self._discarded():
            yield

    @contextlib.contextmanager
    def rolled_back(self, what: str = "this call") -> Iterator[None]:
        """Scratch work (fit_sql's recording, a search's per-fold model) in a transaction
        that is always rolled back; refused while the caller has one open."""
        self.refuse_open_transaction(what)
        with self._discarded():
            yield

    @contextlib.contextmanager
    def _discarded(self) -> Iterator[None]:
        """A transaction of the engine's own that is always rolled back; statements run
        inside it join it."""
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
        self.unreadable_errors = inner.unreadable_errors
        self.statements: list[str] = []

    @property
    def connection(self) -> Any:
        return self.inner.connection

    def execute(self, sql: str) -> None:
        self.statements.append(sql)
        self.inner.execute(sql)

    def fetch(self, sql: str, parameters: list[Any] | None = None) -> list[tuple]:
        return self.inner.fetch(sql, parameters)

    def fetch_with_names(self, sql: str) -> tuple[list[str], list[tuple]]:
        return self.inner.fetch_with_names(sql)

    def relation(self, sql: str) -> Any:
        return self.inner.relation(sql)

    def source(self, obj: Any) -> Source:
        return self.inner.source(obj)

    def lazy(self, source: Source, sql: str, parameters: list[Any] | None = None) -> Any:
        return self.inner.lazy(source, sql, parameters)

    def hold(self, result: Any, *sources: Source) -> Any:
        return self.inner.hold(result, *sources)

    def release(self, source: Source) -> None:
        self.inner.release(source)

    def in_transaction(self) -> bool:
        return True  # the recording runs inside one rolled-back transaction

    def refuse_open_transaction(self, what: str = "this call", *, scratch: bool = False) -> None:
        """Nothing to refuse: the recording's own dry run was checked when it began."""

    @contextlib.contextmanager
    def transaction(self, what: str = "this call", *, join: bool = False) -> Iterator[None]:
        yield  # the recording runs inside one rolled-back transaction

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        yield


def engine_for(con: Any) -> Engine:
    """The engine for a user's connection object (``None``: a private in-memory DuckDB).

    A path is refused with how to open it."""
    if isinstance(con, Engine):
        return con
    if con is None:
        return DuckDBEngine(duckdb.connect())
    if isinstance(con, duckdb.DuckDBPyConnection):
        return DuckDBEngine(con)
    if isinstance(con, (str, bytes)) or hasattr(con, "__fspath__"):
        raise InvalidParameterError(
            f"con must be a DuckDB connection, not the path {con!r}: open it first, "
            f"con = duckdb.connect({str(con)!r})"
        )
    if type(con).__module__.startswith("pyspark."):
        raise UnsupportedError(
            f"con is a Spark {type(con).__name__}, and models live in DuckDB for now (fitting "
            "on Spark is to come): fit with a DuckDB connection, then score in Spark with "
            "spark.sql(model.to_sql('table', dialect='spark'))"
        )
    raise InvalidParameterError(
        f"con must be a DuckDB connection (duckdb.connect(...)), got {type(con).__name__}"
    )


def _conflict(what: str, exc: Exception) -> ConflictError:
    return ConflictError(
        f"{what} conflicted with a write of another connection to the same model and was "
        f"rolled back, changing nothing; retry it (DuckDB: {str(exc).splitlines()[0]})"
    )
