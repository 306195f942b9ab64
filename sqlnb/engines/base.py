"""What every engine is: the only thing in sqlnb that talks to a database.

Everything above the engines renders SQL from templates and hands it to an :class:`Engine`;
it never touches a connection. An engine runs statements (``execute``), reads small
results (``fetch``), returns lazy results (``relation``), turns what a user passes as
input into something a statement can select from (``source``), groups statements into one
atomic unit (``transaction``), and says how its SQL is spelt (``dialect``) and what it can
do (``capabilities``). :func:`sqlnb.engines.engine_for` picks the engine from the
connection object; ``duckdb.py`` and ``spark.py`` beside this module are the two engines.

>>> import duckdb
>>> from sqlnb.engines import engine_for
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
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import (
    UnsupportedError,
)
from ..templates import render, render_repeated
from .dialects import Dialect
from .source import Source


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do, for the few places where the flow depends on it."""

    upsert: bool = True             # INSERT ... ON CONFLICT DO UPDATE (else: a MERGE shape)
    transactions: bool = True       # BEGIN/COMMIT/ROLLBACK around a fit
    stored_functions: bool = True   # scoring macros persisted in the database
    temp_tables: bool = True        # CREATE TEMP TABLE for batches
    models: bool = True             # a model's statistics tables can live here (fit, load)
    duckdb_only: bool = True        # text/long/sparse input, search… (DUCKDB_ONLY)
    list_lambdas: bool = True       # list_transform/list_inner_product: the arrays strategy


class Engine:
    """The interface every engine implements (see :class:`DuckDBEngine`)."""

    dialect: Dialect
    capabilities: Capabilities
    # Whether execute_planned/fetch_planned keep statements planned (else they run plainly).
    keeps_plans = False
    # Whether a scoring macro may ask struct_keys() of its row argument (DuckDB 2.0.1; 1.5.0
    # binds a macro's body with the argument's type unknown and refuses it): the check that
    # the row has every feature then reads its column names so, shorter to plan than a cast
    # of the row to a MAP of text (see row_checked in score/array_terms.sql).
    macro_row_keys = False
    # What reading a relation that does not exist raises.
    missing_relation_errors: tuple[type[Exception], ...] = ()
    # What reading a relation that does not exist, or lacks a column read, raises.
    unreadable_errors: tuple[type[Exception], ...] = ()
    # What a statement given an invalid argument (a regular expression that does not
    # compile) raises.
    invalid_argument_errors: tuple[type[Exception], ...] = ()

    def render(self, template: str, **context: Any) -> str:
        """``sql/<template>`` rendered in this engine's dialect."""
        return render(template, dialect=self.dialect, **context)

    def render_repeated(self, template: str, **context: Any) -> str:
        """:meth:`render` of a statement rendered again and again with the same context
        (an update's): its text is remembered (see :func:`sqlnb.templates.render_repeated`)."""
        return render_repeated(template, dialect=self.dialect, **context)

    def execute(self, sql: str) -> None:
        raise NotImplementedError

    def fetch(self, sql: str, parameters: list[Any] | None = None) -> list[tuple]:
        """The rows of ``sql`` (with bound ``parameters``, ``$n`` or ``?``, if any)."""
        raise NotImplementedError

    def fetch_with_names(self, sql: str) -> tuple[list[str], list[tuple]]:
        """The rows of ``sql`` and its column names."""
        raise NotImplementedError

    def fetch_together(self, queries: list[str]) -> list[tuple[list[str], list[tuple]]]:
        """The column names and rows of each of ``queries`` (small reads of one moment),
        in one statement where the engine runs one statement per call at a fixed cost
        (Spark); one each here."""
        return [self.fetch_with_names(query) for query in queries]

    def prefetch(self, queries: list[str]) -> None:
        """Reads the caller is about to make, with their exact text: an engine where each
        statement costs a round trip reads them together now (:meth:`fetch_together`) and
        answers each later ``fetch``/``fetch_with_names`` of one of those texts (once) from
        what it read. Nothing here: each read runs when asked."""

    def forget_prefetched(self) -> None:
        """Drop what :meth:`prefetch` read and no read took."""

    def read_tables(self, queries: list[str], tables: dict[str, str]
                    ) -> tuple[list[tuple[list[str], list[tuple]]], dict[str, Any]] | None:
        """The answers of ``queries`` and every row of each of ``tables`` (local name ->
        quoted table here) as an Arrow table, all in one statement: for an engine where
        each query over derived relations costs a round of jobs (Spark), so that what a
        write reads back is derived in the driver from the few rows of its statistics.
        None here: the engine reads its own relations."""
        return None

    def defer(self, script: str) -> None:
        """Run ``script``, which creates relations (views) for a write's own reads, where
        and when something reads them: here at once; an engine that answers a write's
        reads from a copy of its statistics (:meth:`read_tables`) may run it before the
        first statement of the write that names one of them, if any does."""
        self.execute(script)

    def prefill(self, answers: dict[str, tuple[list[str], list[tuple]]]) -> None:
        """Answer the next ``fetch``/``fetch_with_names``/``fetch_together`` of each text
        of ``answers`` (once) with its (column names, rows), where the engine keeps
        prefetched reads (see :meth:`prefetch`). Nothing here."""

    def fetch_readable(self, sql: str) -> list[tuple] | None:
        """The rows of ``sql``, or None when a relation or column it reads does not exist;
        either way a transaction the caller has open stays usable."""
        try:
            return self.fetch(sql)
        except self.unreadable_errors:
            return None

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

    def known_rows(self, source: Source) -> int | None:
        """How many rows ``source`` has if that is known without reading them, else None."""
        return None

    def in_memory(self, obj: Any) -> Source | None:
        """``obj`` as an unregistered source that :meth:`run_prepared` can score (a small
        Arrow table), or None: then :meth:`source` registers it as usual."""
        return None

    def run_prepared(self, key: Any, source: Source, statement: Callable[[str], str],
                     relation: bool = True, attach: list[str] | None = None) -> Any:
        """The result of a statement planned once per ``key`` and run on ``source`` (from
        :meth:`in_memory`): a relation over it, or if not ``relation`` an Arrow table;
        ``statement(source_sql)`` gives its text (see :class:`sqlnb.source.PreparedStatements`).
        ``attach`` names columns of the input put before the result's (not copied)."""
        raise NotImplementedError

    def forget_prepared(self) -> None:
        """Free the statements :meth:`run_prepared` planned."""

    def execute_planned(self, sql: str, key: Any = None) -> None:
        """:meth:`execute`, planned once per text (and ``key``) where the engine can keep
        statements planned (see :mod:`sqlnb.planned`); plainly elsewhere."""
        self.execute(sql)

    def fetch_planned(self, sql: str, key: Any = None) -> list[tuple]:
        """:meth:`fetch` of a statement planned once per text (and ``key``), where the
        engine can keep statements planned."""
        return self.fetch(sql)

    def write_slot(self, obj: Any) -> tuple[Source, Any] | None:
        """``obj`` (a small Arrow table) put in the engine's write slot: a source whose text
        is the same at every call, with the key of its schema; None where there is no slot
        (then :meth:`source` registers it as usual). :meth:`empty_write_slot` after use."""
        return None

    def empty_write_slot(self) -> None:
        """Let go of the table :meth:`write_slot` holds."""

    def keep_table(self, name: str) -> None:
        """The temporary table ``name`` (quoted) is kept from call to call by planned
        statements: it is dropped when this engine goes."""

    def relations(self, names: list[str], macro_names: list[str]) -> dict[str, str]:
        """Of ``names`` (lowercased), those taken in the current schema: name -> kind
        (``TABLE``, ``VIEW``, ``MACRO``, ``MACRO TABLE``, or ``VERSIONED``: a view that
        reads the current version of a table, see :meth:`SparkEngine.stage`). Never fails."""
        return dict(self.fetch(self.render("catalog/database.sql#relations", names=names,
                                           macro_names=macro_names)))

    def catalog_generation(self) -> Hashable | None:
        """A value that stays the same while this engine's catalog cannot have changed:
        inside one transaction of the engine's own, no DDL run since (a look at the
        catalog taken under the same value still holds). None: unknown (nothing is
        reused)."""
        return None

    def table(self, name: str) -> str:
        """The quoted name of the relation ``name`` where the engine keeps what it writes
        (DuckDB: the current schema)."""
        return self.dialect.ident(name)

    def scratch_table(self, table: str) -> str:
        """Engines whose upserts rewrite a table (no ``Capabilities.upsert``): the quoted
        name the new contents of ``table`` are written under first."""
        raise NotImplementedError

    def column_names(self, table: str) -> set[str]:
        """The column names of ``table`` (unquoted, of the current schema)."""
        return {row[0] for row in self.fetch(self.render("catalog/database.sql#table_columns", columns_of=table))}

    def versions(self, name: str) -> list[int]:
        """The table versions of ``name`` (engines that write versions, see Spark)."""
        return []

    def drop_stale_views(self, names: list[str]) -> None:
        """Drop the scratch views a killed writer left (engines that write versions)."""

    def carry(self, name: str) -> bool:
        """A staged write keeps the table ``name`` as it is instead of writing a new version
        of it (engines that write versions); False: it must be copied."""
        return False

    def column_list(self, table: str) -> list[str]:
        """The column names of the (quoted) relation ``table``, in order; nothing runs."""
        return list(self.relation(self.render("catalog/versions.sql#columns", table=table)).columns)

    def arrow(self, sql: str) -> Any:
        """The rows of ``sql`` as a pyarrow Table (small results: statistics tables)."""
        raise NotImplementedError

    def in_transaction(self) -> bool:
        """Whether a transaction is open on the connection (the caller's or ours)."""
        raise NotImplementedError

    def refuse_open_transaction(self, what: str = "this call", *, scratch: bool = False) -> None:
        """Raise ``TransactionError`` if the caller has a transaction open, and
        ``ReadOnlyError`` if the database cannot be written (unless the work only writes
        ``scratch`` tables, which a read-only database allows)."""
        raise NotImplementedError

    @contextlib.contextmanager
    def transaction(self, what: str = "this call", *, join: bool = False,
                    checked: bool = False) -> Iterator[None]:
        """One atomic unit: committed when the block ends, rolled back if it raises.

        A caller's open transaction is refused (``TransactionError``, nothing touched),
        unless ``join``: work that leaves nothing behind then runs inside it. ``checked``:
        the caller has just refused one itself (:meth:`refuse_open_transaction`)."""
        raise NotImplementedError
        yield  # pragma: no cover

    def after_write(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` where the open write's new state is what readers see: here,
        inside its transaction (an engine that stages versions runs it once the write's
        block has switched to them, and not if the block raises)."""
        callback()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """The block's reads see one snapshot of the database (a read transaction)."""
        raise NotImplementedError
        yield  # pragma: no cover

    @contextlib.contextmanager
    def rolled_back(self, what: str = "this call") -> Iterator[Any]:
        """A transaction that is always rolled back (a dry run); inner ones join it. It
        yields None, or where the engine keeps the statements of the dry run itself (Spark,
        whose write ends with statements of the engine's own, see
        :meth:`SparkEngine.rolled_back`) an object whose ``statements`` list them."""
        raise NotImplementedError
        yield  # pragma: no cover


def require_models(engine: Engine, what: str) -> None:
    """Refuse ``what`` (a model living on ``engine``) where models cannot live yet."""
    if not engine.capabilities.models:
        raise UnsupportedError(
            f"{what} keeps the model's statistics tables in the database, and on "
            f"{engine.dialect.title} that is still to come (fit, partial_fit, forget, merge, "
            "predict and import_model are DuckDB-only for now): fit with a DuckDB "
            "connection, then score in Spark with "
            "spark.sql(model.to_sql('table', dialect='spark'))"
        )


# What models on engines without ``Capabilities.duckdb_only`` cannot do yet, and instead.
DUCKDB_ONLY = {
    "sparse input": "its batches and scoring are written with DuckDB's list types: pivot the "
                    "entries to columns, or fit on DuckDB",
}


def require_duckdb(engine: Engine, feature: str) -> None:
    """Refuse ``feature`` (a key of ``DUCKDB_ONLY``) on an engine that lacks it, saying
    what to do instead."""
    if not engine.capabilities.duckdb_only:
        raise UnsupportedError(
            f"{feature} is DuckDB-only for now (not on {engine.dialect.title}): "
            f"{DUCKDB_ONLY[feature]}")
