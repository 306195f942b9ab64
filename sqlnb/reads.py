"""Consistent reads: everything a scoring statement needs, read from one snapshot.

A model's parameters are read in a few statements (metadata, groups, classes, terms). In
auto-commit mode each statement sees the database as it is when it starts, so a refit
committed by another cursor in between would mix two models. :func:`read_snapshot` runs
them in one read transaction instead: DuckDB shows every statement in it the database as
it was when the transaction began.

>>> import duckdb
>>> con = duckdb.connect()
>>> with read_snapshot(con):
...     con.execute("SELECT 42").fetchall()
[(42,)]
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import duckdb

from .transaction import in_transaction


@contextmanager
def read_snapshot(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Run the block's reads in one read transaction, rolled back at the end (it writes
    nothing). Inside a transaction already open on ``con`` (the caller's, or a fit's)
    the reads simply join it: it is one snapshot already."""
    if in_transaction(con):
        yield
        return
    con.begin()
    try:
        yield
    finally:
        con.rollback()
