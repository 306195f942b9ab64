"""Turning whatever the user hands us into something a template can select FROM.

Files are read in place by DuckDB (``read_parquet``/``read_csv``), tables and views are
referenced by name, and Python objects (pandas, polars, Arrow, DuckDB relations) are
registered as views over the object itself: DuckDB scans them where they are.
"""

from __future__ import annotations

import itertools
import os
import re
import threading
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import duckdb

from ..templates import render
from .dialects import DUCKDB
from .planned import Cleanup, InputSlot, cleanup_for, free_all, unregister

_counter = itertools.count()
_FILE_READERS = {
    ".parquet": "read_parquet",
    ".pq": "read_parquet",
    ".csv": "read_csv",
    ".tsv": "read_csv",
    ".json": "read_json",
    ".ndjson": "read_json",
}


@dataclass
class Source:
    """A source as a FROM-clause fragment, with its columns and their types."""

    sql: str
    columns: dict[str, str]
    registered: str | None = None  # name of a view we created for a Python object
    obj: Any = None  # that Python object
    paths: list[str] | None = None  # the files a reader reads (a file source)
    reader: str | None = None  # that reader: read_parquet, read_csv…

    def known_rows(self, con: duckdb.DuckDBPyConnection) -> int | None:
        """How many rows the source has, when that is known without reading them: an
        in-memory table's length, or the row counts in Parquet files' footers (one small
        read of metadata). None for anything else (tables, views, CSV, relations)."""
        if self.obj is not None:
            return in_memory_rows(self.obj)
        if self.reader != "read_parquet" or not self.paths:
            return None
        try:
            rows = con.execute(render("catalog/sources.sql#parquet_rows", paths=self.paths)).fetchall()
        except duckdb.Error:
            return None
        return None if not rows or rows[0][0] is None else int(rows[0][0])

    def release(self, con: duckdb.DuckDBPyConnection) -> None:
        """Drop the helper view (only when no lazy result still needs it)."""
        if self.registered is not None:
            con.unregister(self.registered)
            self.registered = None

    def lazy(self, con: duckdb.DuckDBPyConnection, sql: str) -> duckdb.DuckDBPyRelation:
        """The lazy relation of ``sql`` (a statement reading this source), with the helper
        view released at once: a Python object is then read through a relation that
        holds it, so it lives as long as the result does and no registration is left
        behind on the connection (a service scoring DataFrames in a loop keeps none)."""
        if self.registered is None:
            return con.sql(sql)
        if small(self.obj):
            return self.eager(con, sql, None)
        name, obj = self.registered, self.obj
        self.release(con)
        self.obj = None
        if isinstance(obj, duckdb.DuckDBPyRelation):
            relation = obj
        elif type(obj).__module__.split(".")[0] == "pandas":
            relation = con.from_df(obj)
        else:  # Arrow, polars and anything with an Arrow C stream
            relation = con.from_arrow(obj)
        # `query` names the relation `name` for this statement; DuckDB before 2.0 keeps it
        # as a temporary view, which the result reads at each run: dropped with the result
        result = relation.query(name, sql)
        weakref.finalize(result, cleanup_for(con).statements, con,
                         [(name, _drop_view_sql(name))], [])
        return result

    def lazy_bound(self, con: duckdb.DuckDBPyConnection, sql: str,
                   parameters: list[Any]) -> duckdb.DuckDBPyRelation:
        """:meth:`lazy` for a statement with bound parameters (``$n``). A relation's
        ``query`` binds none, so a Python object stays registered, and its helper view is
        dropped when the result is garbage collected: nothing outlives the result."""
        if self.registered is not None and small(self.obj):
            return self.eager(con, sql, parameters)
        return held_by(con.sql(sql, params=parameters), con, self)

    def eager(self, con: duckdb.DuckDBPyConnection, sql: str,
              parameters: list[Any] | None) -> duckdb.DuckDBPyRelation:
        """The result of ``sql`` on a small in-memory input, computed now and returned as a
        relation over it. A lazy relation binds its statement twice (when it is made and
        when it runs), which for a few rows costs more than the scoring itself; the input
        is in memory already, so its result may be too."""
        try:
            result = _arrow_result(con, sql, parameters)
        finally:
            self.release(con)
            self.obj = None
        return con.from_arrow(result)


# DuckDB notes that Arrow output of an executed statement copies the rows; the copies made
# here are of a few rows (in-memory inputs scored at once), so the note is silenced for
# this module's calls only, by a filter of the process's: warnings.catch_warnings around
# each call is not thread-safe (one thread's exit restores the filters another thread
# relies on, and the note reaches the user). See _silence_copy_note and _arrow_result.
_COPY_NOTE = "Arrow output on a DB-API result"
_copy_filter: list[Any] = [None]  # the filter once installed (the warnings module's tuple)


def _silence_copy_note() -> None:
    """Make the filter the first of the process's, unless it is already: installed once,
    and again only when the filters changed since (another filter put before it, such as
    ``pytest.warns``'s "always", would show the note; a ``catch_warnings`` block open when
    it was installed drops it on exit). It only ever adds itself: it never removes a filter
    of anyone else's, whatever thread is in a ``catch_warnings`` block."""
    filters = warnings.filters
    if filters and filters[0] is _copy_filter[0]:
        return
    warnings.filterwarnings("ignore", message=re.escape(_COPY_NOTE), category=UserWarning,
                            module=re.escape(__name__))
    _copy_filter[0] = next((f for f in warnings.filters
                            if f[0] == "ignore" and f[2] is UserWarning
                            and getattr(f[1], "pattern", None) == re.escape(_COPY_NOTE)
                            and getattr(f[3], "pattern", None) == re.escape(__name__)), None)


def _arrow_result(con: duckdb.DuckDBPyConnection, sql: str,
                  parameters: list[Any] | None = None) -> Any:
    """The rows of the query ``sql`` as a pyarrow Table, from an executed statement (binding
    once, unlike a relation). Should a filter of the caller's turn DuckDB's note on the copy
    into an error (``-W error``), the note comes before any row is read: the query then
    runs again as a relation, which makes no such note."""
    _silence_copy_note()
    try:
        return con.execute(sql, parameters).to_arrow_table()
    except UserWarning:
        return con.sql(sql, params=parameters).to_arrow_table()


# In-memory inputs of at most this many rows are scored at once (see ``Source.eager``).
EAGER_ROWS = 50_000


def in_memory(obj: Any) -> Source | None:
    """``obj`` as a source that is not registered anywhere, when it is a small pyarrow Table
    whose DuckDB column types its schema tells (what :class:`PreparedStatements` scores);
    else None. Its ``sql`` is empty: only a prepared statement's input slot reads it."""
    if type(obj).__module__.split(".")[0] != "pyarrow" or not small(obj):
        return None
    columns = _arrow_columns(obj)
    if columns is None:
        return None
    return Source(sql="", columns=columns, obj=obj)


def with_input_columns(table: Any, names: list[str], result: Any) -> Any:
    """The columns ``names`` of the pyarrow Table ``table`` followed by ``result``'s (a
    pyarrow Table of as many rows, in the same order), without copying either: a statement
    that passes the input's columns through pays for each of them in binding and in every
    level it crosses.

    >>> import pyarrow as pa
    >>> with_input_columns(pa.table({"x": [1, 2]}), ["x"], pa.table({"y": [3, 4]})).to_pydict()
    {'x': [1, 2], 'y': [3, 4]}
    """
    import pyarrow as pa

    if list(names) == table.column_names:  # all of them (predict*): append to the table
        for field, column in zip(result.schema, result.columns):
            table = table.append_column(field, column)
        return table
    columns = [table.column(name) for name in names] + list(result.columns)
    return pa.Table.from_arrays(columns, names=list(names) + result.column_names)


def schema_key(obj: Any) -> tuple:
    """What a prepared statement's input must keep: its columns' names and Arrow types."""
    return _schema_facts(obj.schema)[1]


@dataclass
class _Planned:
    """A statement :class:`PreparedStatements` keeps: its name, input slot and EXECUTE,
    and once its result is known to hold only numbers and booleans, that result's schema."""

    name: str
    slot: InputSlot
    execute: str
    numeric: Any = None


def _numeric(arrow_type: Any) -> bool:
    import pyarrow.types as kinds

    return kinds.is_integer(arrow_type) or kinds.is_floating(arrow_type) or \
        kinds.is_boolean(arrow_type)


def _numeric_table(columns: dict[str, Any], schema: Any) -> Any:
    """The NumPy columns of a result (``fetchnumpy``: NULLs masked) as an Arrow table of
    ``schema``. For numbers and booleans this is the table ``to_arrow_table`` gives, without
    the second pass it makes (DuckDB reads the rows back through a statement of its own):
    ~0.2 ms less for the 1,797 digits rows."""
    import pyarrow as pa

    return pa.Table.from_arrays([pa.array(columns[field.name], type=field.type)
                                 for field in schema], schema=schema)


class PreparedStatements:
    """Statements planned once on a connection (``PREPARE``) and run again (``EXECUTE``)
    on new in-memory inputs: for a few rows, parsing, binding and planning a statement
    cost several times more than running it.

    Each statement reads a view of its own over an input slot; ``run`` puts the caller's
    table in the slot, executes, and empties the slot again (nothing holds the rows
    afterwards). The statements are keyed by the caller (which puts whatever makes the
    statement's text differ in the key); the oldest beyond ``LIMIT`` are freed, and all of
    them by :meth:`clear` or when this object goes.

    >>> import duckdb, pyarrow as pa
    >>> from sqlnb.templates import render
    >>> con, statements = duckdb.connect(), PreparedStatements()
    >>> rows = lambda source: render("fit/counts.sql#batch_rows", t={"batch": source})
    >>> statements.run(con, "rows", pa.table({"x": [1, 2]}), rows).to_pydict()
    {'count_star()': [2]}
    >>> statements.run(con, "rows", pa.table({"x": [5]}), rows).to_pydict()
    {'count_star()': [1]}
    >>> statements.clear(con)
    """

    LIMIT = 16

    def __init__(self) -> None:
        self._entries: OrderedDict[Hashable, _Planned] = OrderedDict()
        self._lock = threading.Lock()
        # (name, its DEALLOCATE) of each statement, shared with the finalizer (which
        # renders nothing: it may run at any moment, during another call)
        self._names: list[tuple[str, str]] = []
        self._finalizer: Any = None

    def run(self, con: duckdb.DuckDBPyConnection, key: Hashable, table: Any,
            statement: Callable[[str], str]) -> Any:
        """The result of the statement ``key`` names on ``table`` (a pyarrow Table), as a
        pyarrow Table; ``statement(source_sql)`` gives its text the first time."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = self._prepare(con, table, statement)
                self._entries[key] = entry
                while len(self._entries) > self.LIMIT:
                    _, old = self._entries.popitem(last=False)
                    self._free(con, old.name)
            else:
                self._entries.move_to_end(key)
            entry.slot.table = table
            try:
                if entry.numeric is not None:
                    result = _numeric_table(con.execute(entry.execute).fetchnumpy(),
                                            entry.numeric)
                else:
                    result = _arrow_result(con, entry.execute)
                    names = result.column_names
                    if len(set(names)) == len(names) and \
                            all(_numeric(field.type) for field in result.schema):
                        entry.numeric = result.schema
            finally:
                entry.slot.table = None
        return result

    def _prepare(self, con: duckdb.DuckDBPyConnection, table: Any,
                 statement: Callable[[str], str]) -> _Planned:
        name = f"__sqlnb_prepared_{os.getpid()}_{next(_counter)}"
        slot = InputSlot()
        slot.table = table
        con.register(name, slot)
        try:
            con.execute(render("score/prepared.sql#prepare", name=name,
                               statement=statement(_from_clause(name=name))))
        except BaseException:
            con.unregister(name)
            raise
        finally:
            slot.table = None
        self._names.append((name, render("score/prepared.sql#deallocate", name=name)))
        if self._finalizer is None:
            # never from another thread: see planned.Cleanup
            self._finalizer = weakref.finalize(self, _free_later, cleanup_for(con), con,
                                               self._names)
        return _Planned(name, slot, render("score/prepared.sql#execute", name=name))

    def _free(self, con: duckdb.DuckDBPyConnection, name: str) -> None:
        freed = [entry for entry in self._names if entry[0] == name]
        self._names[:] = [entry for entry in self._names if entry[0] != name]
        _free_all(con, freed)

    def clear(self, con: duckdb.DuckDBPyConnection) -> None:
        """Free every statement (and its view): the next ``run`` plans again."""
        with self._lock:
            self._entries.clear()
            _free_all(con, self._names)


def _free_later(cleanup: Cleanup, con: duckdb.DuckDBPyConnection,
                names: list[tuple[str, str]]) -> None:
    """The finalizer of :class:`PreparedStatements`: its statements and their views."""
    cleanup.statements(con, names, [name for name, _ in names])


def _free_all(con: duckdb.DuckDBPyConnection, names: list[tuple[str, str]]) -> None:
    """Deallocate prepared statements and drop their views (nothing left if the connection
    was closed first)."""
    views = [name for name, _ in names]
    free_all(con, names)
    for name in views:
        unregister(con, name)


def _drop_view_sql(name: str) -> str:
    """The statement dropping the view ``name`` if there is one."""
    return render("catalog/versions.sql#drop_view", table=DUCKDB.ident(name))


def in_memory_rows(obj: Any) -> int | None:
    """The number of rows of an in-memory table (Arrow, pandas, polars), else None."""
    module = type(obj).__module__.split(".")[0]
    if module == "pyarrow" and hasattr(obj, "num_rows"):
        return int(obj.num_rows)
    if module in ("pandas", "polars") and hasattr(obj, "shape"):
        return int(obj.shape[0])
    return None


def small(obj: Any) -> bool:
    """Whether ``obj`` is an in-memory table (Arrow, pandas, polars) of few rows."""
    rows = in_memory_rows(obj)
    return rows is not None and rows <= EAGER_ROWS


def held_by(result: duckdb.DuckDBPyRelation, con: duckdb.DuckDBPyConnection,
            *sources: Source) -> duckdb.DuckDBPyRelation:
    """Tie the helper views of ``sources`` to ``result``: they are dropped when the result
    is garbage collected, so a lazy result can still read its Python objects and nothing
    outlives it."""
    for source in sources:
        if source.registered is not None:
            weakref.finalize(result, cleanup_for(con).view, con, source.registered)
            source.registered = None
            source.obj = None
    return result


# How DuckDB says a relation was made on another connection: 2.0 names the database,
# earlier releases the connection.
_OTHER_CONNECTION_SAYS = ("another database", "another connection")


def _of_another_connection(exc: Exception) -> bool:
    message = str(exc).lower()
    return any(words in message for words in _OTHER_CONNECTION_SAYS)


_OTHER_CONNECTION = (
    "the relation was made on another connection, whose database this one cannot read: "
    "build it on the model's connection (con.sql(...), con.read_parquet(...)) or pass its "
    "rows (relation.arrow())"
)


def _reader(path: str) -> str | None:
    lower = path.lower()
    for suffix, reader in _FILE_READERS.items():
        if lower.endswith((suffix, suffix + ".gz", suffix + ".zst")):
            return reader
    return None


def _is_python_table(obj: Any) -> bool:
    module = type(obj).__module__.split(".")[0]
    return module in ("pandas", "polars", "pyarrow") or hasattr(obj, "__arrow_c_stream__")


def resolve(con: duckdb.DuckDBPyConnection, source: Any) -> Source:
    """Describe ``source`` and return how to select from it."""
    from ..errors import InvalidDataError, UnknownColumnError

    registered, paths, reader = None, None, None
    if isinstance(source, (list, tuple)) and source and all(isinstance(s, (str, os.PathLike)) for s in source):
        paths = [os.fspath(s) for s in source]
        reader = _reader(paths[0]) or "read_parquet"
        sql = _from_clause(reader=reader, paths=paths)
    elif isinstance(source, os.PathLike) or (isinstance(source, str) and _reader(source)):
        paths = [os.fspath(source)]
        reader = _reader(paths[0]) or "read_parquet"
        sql = _from_clause(reader=reader, paths=paths)
    elif isinstance(source, str):
        sql = _from_clause(name=source)
    elif isinstance(source, duckdb.DuckDBPyRelation) or _is_python_table(source):
        _refuse_complex(source)
        registered = f"__sqlnb_source_{os.getpid()}_{next(_counter)}"
        try:
            con.register(registered, source)
        except duckdb.InvalidInputException as exc:
            if not _of_another_connection(exc):
                raise
            raise InvalidDataError(_OTHER_CONNECTION) from exc
        sql = _from_clause(name=registered)
    else:
        raise InvalidDataError(
            "source must be a table or view name, a Parquet/CSV path or glob, a DuckDB "
            f"relation, a pandas/polars DataFrame or a pyarrow Table; got {type(source).__name__}"
        )
    simple = _arrow_columns(source) if registered else None
    if simple is not None:  # what DESCRIBE would say, known without asking
        return Source(sql=sql, columns=simple, registered=registered, obj=source)
    try:
        rows = con.execute(render("catalog/sources.sql#describe", source=sql)).fetchall()
    except duckdb.Error as exc:
        if registered:
            con.unregister(registered)
        if isinstance(source, duckdb.DuckDBPyRelation) and _of_another_connection(exc):
            raise InvalidDataError(_OTHER_CONNECTION) from exc
        raise UnknownColumnError(f"cannot read source {source!r}: {exc}") from exc
    return Source(sql=sql, columns={r[0]: r[1] for r in rows}, registered=registered,
                  obj=source if registered else None, paths=paths, reader=reader)


def _refuse_complex(obj: Any) -> None:
    """Refuse a pandas DataFrame with complex-valued columns, which DuckDB cannot read."""
    from ..errors import InvalidDataError

    if type(obj).__module__.split(".")[0] != "pandas" or not hasattr(obj, "dtypes"):
        return
    dtypes = obj.dtypes.items() if hasattr(obj.dtypes, "items") else [("", obj.dtypes)]
    complex_columns = [str(name) for name, dtype in dtypes
                       if getattr(dtype, "kind", "") == "c"]
    if complex_columns:
        raise InvalidDataError(
            f"column(s) {complex_columns} hold complex numbers, which DuckDB cannot read: "
            "pass their real and imaginary parts as two float columns (e.g. df[c].real "
            "and df[c].imag), or their magnitude (abs)"
        )


# Arrow types whose DuckDB type is fixed: an Arrow table of only these needs no DESCRIBE.
_ARROW_TYPES = {"double": "DOUBLE", "float": "FLOAT", "int64": "BIGINT", "int32": "INTEGER",
                "int16": "SMALLINT", "int8": "TINYINT", "bool": "BOOLEAN", "string": "VARCHAR",
                "large_string": "VARCHAR"}


def _arrow_columns(obj: Any) -> dict[str, str] | None:
    """The columns DuckDB sees in a pyarrow Table of simple types, read from its schema
    (a one-row predict spends a millisecond asking DuckDB); None when not that simple.
    The same dict for every table of an equal schema (see ``_schema_facts``)."""
    if type(obj).__module__.split(".")[0] != "pyarrow" or not hasattr(obj, "schema"):
        return None
    return _schema_facts(obj.schema)[0]


# The facts of the last few Arrow schemas seen: a predict loop hands over tables of one
# schema, and reading 64 fields' names and types costs ~0.1 ms a call, comparing two
# schemas a fraction of a microsecond.
_SCHEMAS_KEPT = 8
_schemas: list[tuple[Any, tuple[dict[str, str] | None, tuple]]] = []


def _schema_facts(schema: Any) -> tuple[dict[str, str] | None, tuple]:
    """An Arrow schema's columns as DuckDB types them (None when not all simple, see
    ``_arrow_columns``) and its key (names and Arrow types, see ``schema_key``)."""
    global _schemas
    for known, facts in _schemas:
        if known.equals(schema):
            return facts
    key = tuple((field.name, str(field.type)) for field in schema)
    names = [name for name, _ in key]
    types = [_ARROW_TYPES.get(type_name) for _, type_name in key]
    simple = (len({n.lower() for n in names}) == len(names) and "" not in names
              and None not in types)  # else DuckDB renames clashing names: let it say how
    facts = (dict(zip(names, types)) if simple else None, key)
    _schemas = [(schema, facts), *_schemas[:_SCHEMAS_KEPT - 1]]
    return facts


def _from_clause(*, reader: str | None = None, paths: list[str] | None = None,
                 name: str | None = None) -> str:
    return render("catalog/sources.sql#from_clause", reader=reader, paths=paths or [], name=name).strip()
