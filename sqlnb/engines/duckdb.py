"""The DuckDB engine, the embedded default: statements run on a DuckDB connection.

Inputs are resolved by :mod:`sqlnb.engines.source` and small ones run through statements
planned once (:mod:`sqlnb.engines.planned`).
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import duckdb

from ..errors import (
    ConflictError,
    ReadOnlyError,
    TransactionError,
)
from ..templates import render
from .base import Capabilities, Engine
from .dialects import DUCKDB
from .planned import InputSlot, PlannedScripts, cleanup_for, running
from .source import (
    PreparedStatements,
    Source,
    held_by,
    in_memory,
    resolve,
    schema_key,
    with_input_columns,
)

# A DuckDB connection, for the annotations of modules that never import the driver.
Connection = duckdb.DuckDBPyConnection


def duckdb_release() -> tuple[int, ...]:
    """The DuckDB release this process imports, as numbers (``(2, 0, 1)``)."""
    numbers = []
    for part in duckdb.__version__.split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        numbers.append(int(digits) if digits else 0)
    return tuple(numbers)


class DuckDBEngine(Engine):
    """An engine over a DuckDB connection. Its methods that run statements are ``running``
    calls: an object garbage collected during one frees what it holds on the connection
    when the call is done (``sqlnb.planned.later``)."""

    dialect = DUCKDB
    capabilities = Capabilities()
    missing_relation_errors = (duckdb.CatalogException,)
    unreadable_errors = (duckdb.CatalogException, duckdb.BinderException)
    invalid_argument_errors = (duckdb.InvalidInputException,)
    keeps_plans = True
    macro_row_keys = duckdb_release() >= (2, 0, 1)

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self.connection = connection
        self._depth = 0
        self._prepared = PreparedStatements()
        self._planned = PlannedScripts()
        self._slot = InputSlot()
        self._parsed: dict[str, Any] = {}  # see fetch_readable
        self._transactions = 0  # transactions begun (see catalog_generation)
        # what finalizers free on the connection, run by the thread using it (each call
        # below says it is that thread): never from another thread, see planned.Cleanup
        self._cleanup = cleanup_for(connection)

    @running
    def execute(self, sql: str) -> None:
        self._cleanup.enter(self.connection)
        # any statement run as it is may be DDL: planned statements are planned again
        self._planned.catalog_changed()
        self.connection.execute(sql)

    @running
    def fetch(self, sql: str, parameters: list[Any] | None = None) -> list[tuple]:
        self._cleanup.enter(self.connection)
        return self.connection.execute(sql, parameters).fetchall()

    @running
    def fetch_with_names(self, sql: str) -> tuple[list[str], list[tuple]]:
        self._cleanup.enter(self.connection)
        cursor = self.connection.execute(sql)
        return [d[0] for d in cursor.description], cursor.fetchall()

    @running
    def fetch_readable(self, sql: str) -> list[tuple] | None:
        # A statement that fails aborts the caller's open transaction; binding it as a
        # relation runs nothing, and a failed bind leaves the transaction as it was. One
        # bind and one read (~0.35 ms) instead of asking first whether a transaction is
        # open (two statements) and, if one is, whether the relation exists (a third).
        # The text is parsed once (a predict loop reads the version at every call).
        self._cleanup.enter(self.connection)
        statement = self._parsed.get(sql)
        if statement is None:
            statement = self.connection.extract_statements(sql)[0]
            self._parsed = {**dict(list(self._parsed.items())[-15:]), sql: statement}
        try:
            self.connection.sql(statement)
        except self.unreadable_errors:
            return None
        return self.connection.execute(statement).fetchall()

    @running
    def relation(self, sql: str) -> duckdb.DuckDBPyRelation:
        self._cleanup.enter(self.connection)
        return self.connection.sql(sql)

    @running
    def arrow(self, sql: str) -> Any:
        self._cleanup.enter(self.connection)
        return self.connection.sql(sql).to_arrow_table()

    @running
    def source(self, obj: Any) -> Source:
        self._cleanup.enter(self.connection)
        source = resolve(self.connection, obj)
        if source.registered is not None:  # a view created for it
            self._planned.catalog_changed(inputs=True)
        return source

    @running
    def lazy(self, source: Source, sql: str,
             parameters: list[Any] | None = None) -> duckdb.DuckDBPyRelation:
        self._cleanup.enter(self.connection)
        if parameters is None:
            return source.lazy(self.connection, sql)
        return source.lazy_bound(self.connection, sql, parameters)

    def hold(self, result: duckdb.DuckDBPyRelation, *sources: Source) -> duckdb.DuckDBPyRelation:
        return held_by(result, self.connection, *sources)

    def release(self, source: Source) -> None:
        if source.registered is not None:
            self._planned.catalog_changed(inputs=True)
        source.release(self.connection)

    def known_rows(self, source: Source) -> int | None:
        return source.known_rows(self.connection)

    def in_memory(self, obj: Any) -> Source | None:
        return in_memory(obj)

    @running
    def run_prepared(self, key: Any, source: Source, statement: Callable[[str], str],
                     relation: bool = True, attach: list[str] | None = None) -> Any:
        self._cleanup.enter(self.connection)
        table, source.obj = source.obj, None
        result = self._prepared.run(self.connection, (key, schema_key(table)), table, statement)
        if attach:
            result = with_input_columns(table, attach, result)
        return self.connection.from_arrow(result) if relation else result

    def forget_prepared(self) -> None:
        self._cleanup.enter(self.connection)
        self._prepared.clear(self.connection)

    @running
    def execute_planned(self, sql: str, key: Any = None) -> None:
        self._cleanup.enter(self.connection)
        self._planned.execute(self.connection, sql, key)

    @running
    def fetch_planned(self, sql: str, key: Any = None) -> list[tuple]:
        self._cleanup.enter(self.connection)
        return self._planned.fetch(self.connection, sql, key)

    @running
    def write_slot(self, obj: Any) -> tuple[Source, Any] | None:
        source = in_memory(obj)
        if source is None:
            return None
        self._cleanup.enter(self.connection)
        slot = self._slot
        slot.table = obj
        if slot.name is None:
            slot.name = f"__sqlnb_write_{os.getpid()}_{id(self)}"
        if not slot.registered:
            # registered once, for as long as this engine lives: a plan keeps the slot
            # object it was made over, so the same object under the same name serves every
            # call, and no view is created or dropped per call (that would change the
            # catalog, and DuckDB would plan every planned statement again)
            self.connection.register(slot.name, slot)
            slot.registered = True
            self._planned.catalog_changed(inputs=True)
            weakref.finalize(self, self._cleanup.view, self.connection, slot.name)
        source.sql = render("catalog/sources.sql#from_clause", name=slot.name, paths=[]).strip()
        source.obj = None
        return source, schema_key(obj)

    def empty_write_slot(self) -> None:
        self._slot.table = None  # the view stays (reading it now fails); the table goes

    def keep_table(self, name: str) -> None:
        self._planned.keep_table(self.connection,
                                 render("catalog/versions.sql#drop", table=name))

    def _rolled_back(self) -> None:
        """After a rollback: what it undid (a view registered, a table created in the
        transaction) is made again when next needed."""
        self._slot.registered = False
        self._planned.catalog_changed(inputs=True)

    def catalog_generation(self) -> tuple[int, int, int] | None:
        # inside a write transaction (its snapshot: no other connection's DDL shows), until
        # a statement that may be DDL runs (each such call marks a catalog change)
        if not self._depth:
            return None
        return (id(self), self._transactions, self._planned.generation)

    def read_only(self) -> bool:
        """Whether the connection's database was opened read-only."""
        return self.fetch(self.render("catalog/database.sql#read_only"))[0][0] is True

    def in_transaction(self, first: int | None = None) -> bool:
        """Whether ``BEGIN`` is in force: in auto-commit mode every statement runs in a
        transaction of its own, so two reads of the transaction id differ (``first``: the
        id a statement just read)."""
        if first is None:
            first = self.fetch("SELECT txid_current()")[0][0]
        return first == self.fetch("SELECT txid_current()")[0][0]

    def refuse_open_transaction(self, what: str = "this call", *, scratch: bool = False) -> None:
        """Raise ``TransactionError`` if the caller has a transaction open (DuckDB has no
        savepoints: our BEGIN would fail, our COMMIT or ROLLBACK would end theirs), and
        ``ReadOnlyError`` if the database was opened read-only (before any statement
        fails), unless the work only writes ``scratch`` (temporary) tables."""
        if self._depth:
            return
        read_only, first = self.fetch(self.render("catalog/database.sql#read_only"))[0]
        if not scratch and read_only is True:
            raise ReadOnlyError(
                f"{what} writes the model's tables, and this database was opened read-only: "
                "open it with duckdb.connect(path) (read_only=False) to write, or only read "
                "(predict*, evaluate, to_sql) on this connection"
            )
        if self.in_transaction(first):
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
    def transaction(self, what: str = "this call", *, join: bool = False,
                    checked: bool = False) -> Iterator[None]:
        """One atomic unit: committed when the block ends, rolled back if it raises.

        A transaction opened inside another one of the same engine joins it, so a step
        that is atomic on its own (recreating the scoring macros) is part of a fit's. A
        transaction the caller left open is refused before anything runs
        (``TransactionError``), unless ``join`` (work that leaves nothing behind, such as
        a scratch table dropped at the end): the block then runs inside it. ``checked``:
        the caller has just made that check (:meth:`refuse_open_transaction`) in the same
        call, with nothing run on the connection since but its own reads.
        """
        if self._depth or (join and self.in_transaction()):
            with self._joined():
                yield
            return
        if not checked:
            self.refuse_open_transaction(what, scratch=join)
        self._cleanup.enter(self.connection)
        self.connection.begin()
        self._transactions += 1
        self._depth = 1
        try:
            yield
        except BaseException as exc:
            self._depth = 0
            self.connection.rollback()
            self._rolled_back()
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
        self._cleanup.enter(self.connection)
        self.connection.begin()
        self._transactions += 1
        self._depth = 1
        try:
            yield
        finally:
            self._depth = 0
            self.connection.rollback()
            self._rolled_back()


def of_tables(tables: dict[str, Any]) -> DuckDBEngine:
    """An engine over a new in-memory database holding a copy of each of ``tables`` (name
    -> Arrow table), e.g. the statistics another engine read (``Engine.read_tables``)."""
    engine = DuckDBEngine(duckdb.connect())
    for name, data in tables.items():
        engine.connection.register("__sqlnb_copy", data)
        engine.execute(engine.render("catalog/versions.sql#local_copy",
                                     table=engine.dialect.ident(name),
                                     source=engine.dialect.ident("__sqlnb_copy")))
        engine.connection.unregister("__sqlnb_copy")
    return engine


class RecordingEngine(Engine):
    """Runs every statement on another engine and keeps the ones that write.

    ``fit_sql`` runs a fit on it inside :meth:`Engine.rolled_back`: reads see what the
    recorded writes produced (so every kind of model records the same way), and the
    database is left as it was.
    """

    def __init__(self, inner: Engine, statements: list[str] | None = None) -> None:
        self.inner = inner
        self.dialect = inner.dialect
        self.capabilities = inner.capabilities
        self.missing_relation_errors = inner.missing_relation_errors
        self.unreadable_errors = inner.unreadable_errors
        self.invalid_argument_errors = inner.invalid_argument_errors
        # ``statements``: the list where ``inner`` keeps what it runs itself (a Spark dry
        # run, whose switch runs statements of the engine's own): then nothing is added here
        self.keeps = statements is None
        self.statements: list[str] = [] if statements is None else statements

    @property
    def connection(self) -> Any:
        return self.inner.connection

    def __getattr__(self, name: str) -> Any:
        # what an engine has of its own (Spark's versions: stage, version_table…)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def execute(self, sql: str) -> None:
        if self.keeps:
            self.statements.append(sql)
        self.inner.execute(sql)

    def table(self, name: str) -> str:
        return self.inner.table(name)

    def scratch_table(self, table: str) -> str:
        return self.inner.scratch_table(table)

    def versions(self, name: str) -> list[int]:
        return self.inner.versions(name)

    def carry(self, name: str) -> bool:
        return self.inner.carry(name)

    def drop_stale_views(self, names: list[str]) -> None:
        self.inner.drop_stale_views(names)

    def arrow(self, sql: str) -> Any:
        return self.inner.arrow(sql)

    def fetch_together(self, queries: list[str]) -> list[tuple[list[str], list[tuple]]]:
        return self.inner.fetch_together(queries)

    def prefetch(self, queries: list[str]) -> None:
        self.inner.prefetch(queries)

    def forget_prefetched(self) -> None:
        self.inner.forget_prefetched()

    def prefill(self, answers: dict[str, tuple[list[str], list[tuple]]]) -> None:
        self.inner.prefill(answers)

    def read_tables(self, queries: list[str], tables: dict[str, str]
                    ) -> tuple[list[tuple[list[str], list[tuple]]], dict[str, Any]] | None:
        return self.inner.read_tables(queries, tables)

    def fetch(self, sql: str, parameters: list[Any] | None = None) -> list[tuple]:
        return self.inner.fetch(sql, parameters)

    def fetch_with_names(self, sql: str) -> tuple[list[str], list[tuple]]:
        return self.inner.fetch_with_names(sql)

    def fetch_readable(self, sql: str) -> list[tuple] | None:
        return self.inner.fetch_readable(sql)

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

    def known_rows(self, source: Source) -> int | None:
        return self.inner.known_rows(source)

    def in_memory(self, obj: Any) -> Source | None:
        return self.inner.in_memory(obj)

    def run_prepared(self, key: Any, source: Source, statement: Callable[[str], str],
                     relation: bool = True, attach: list[str] | None = None) -> Any:
        return self.inner.run_prepared(key, source, statement, relation, attach)

    def forget_prepared(self) -> None:
        self.inner.forget_prepared()

    def relations(self, names: list[str], macro_names: list[str]) -> dict[str, str]:
        return self.inner.relations(names, macro_names)

    def column_names(self, table: str) -> set[str]:
        return self.inner.column_names(table)

    def in_transaction(self) -> bool:
        return True  # the recording runs inside one rolled-back transaction

    def refuse_open_transaction(self, what: str = "this call", *, scratch: bool = False) -> None:
        """Nothing to refuse: the recording's own dry run was checked when it began."""

    @contextlib.contextmanager
    def transaction(self, what: str = "this call", *, join: bool = False,
                    checked: bool = False) -> Iterator[None]:
        yield  # the recording runs inside one rolled-back transaction

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        yield


def _conflict(what: str, exc: Exception) -> ConflictError:
    return ConflictError(
        f"{what} conflicted with a write of another connection to the same model and was "
        f"rolled back, changing nothing; retry it (DuckDB: {str(exc).splitlines()[0]})"
    )
