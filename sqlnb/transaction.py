"""The one place where sqlnb opens, commits and rolls back a transaction.

DuckDB has no savepoints, so a write cannot nest inside a transaction the caller has left
open: ``BEGIN`` would fail and abort the caller's transaction, and a ``COMMIT`` or
``ROLLBACK`` of ours would end it. :func:`transaction` therefore looks first and refuses
(``TransactionError``) without touching the caller's pending writes.

>>> import duckdb
>>> con = duckdb.connect()
>>> with transaction(con):
...     _ = con.execute("CREATE TABLE t AS SELECT 1 AS x")
>>> con.execute("SELECT x FROM t").fetchall()
[(1,)]
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import duckdb

from .errors import ConflictError, ReadOnlyError, TransactionError
from .templates import render


def in_transaction(con: Any) -> bool:
    """Whether ``con`` has an explicit transaction open (in auto-commit mode every statement
    runs in a transaction of its own, so two reads of the transaction id differ)."""
    first = con.execute("SELECT txid_current()").fetchall()[0][0]
    second = con.execute("SELECT txid_current()").fetchall()[0][0]
    return first == second


def refuse_open_transaction(con: Any, what: str, *, scratch: bool = False) -> None:
    """Raise ``TransactionError`` if the caller has a transaction open on ``con``, and
    ``ReadOnlyError`` if its database was opened read-only (before any statement fails),
    unless the work only writes ``scratch`` (temporary) tables, which a read-only
    database allows."""
    if getattr(con, "defers_transactions", False):  # a fit script being recorded
        return
    if not scratch and con.execute(render("read_only.sql")).fetchall() == [(True,)]:
        raise ReadOnlyError(
            f"{what} writes the model's tables, and this database was opened read-only: "
            "open it with duckdb.connect(path) (read_only=False) to write, or only read "
            "(predict*, evaluate, to_sql) on this connection"
        )
    if in_transaction(con):
        raise TransactionError(
            f"{what} writes in a transaction of its own, and this connection has an open "
            "transaction (DuckDB cannot nest them): commit or roll back first"
        )


@contextmanager
def transaction(con: Any, what: str = "this call", *, join: bool = False) -> Iterator[Any]:
    """Run the block in a transaction of its own: committed if it ends normally, rolled
    back if it raises. Refuses when the caller already has a transaction open, unless
    ``join`` (work that leaves nothing behind, such as a scratch table dropped at the
    end): then the block runs inside the caller's transaction, which is left open."""
    if join and not getattr(con, "defers_transactions", False) and in_transaction(con):
        yield con
        return
    refuse_open_transaction(con, what, scratch=join)
    con.begin()
    try:
        yield con
    except BaseException as exc:
        con.rollback()
        if isinstance(exc, duckdb.TransactionException):
            raise _conflict(what, exc) from exc
        raise
    try:
        con.commit()
    except duckdb.TransactionException as exc:  # a conflict found at commit time
        raise _conflict(what, exc) from exc


def _conflict(what: str, exc: Exception) -> ConflictError:
    return ConflictError(
        f"{what} conflicted with a write of another connection to the same model and was "
        f"rolled back, changing nothing; retry it (DuckDB: {str(exc).splitlines()[0]})"
    )


@contextmanager
def discarded(con: Any, what: str = "this call") -> Iterator[Any]:
    """Run the block in a transaction of its own that is always rolled back: scratch work
    (a search's per-fold statistics) that must leave nothing behind, even if the process
    dies half-way. Refuses when the caller already has a transaction open."""
    refuse_open_transaction(con, what)
    con.begin()
    try:
        yield con
    finally:
        con.rollback()
