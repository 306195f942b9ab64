"""The engines: the only code in sqlnb that talks to a database.

- ``base.py``: what every engine is (:class:`~sqlnb.engines.base.Engine`, its
  :class:`~sqlnb.engines.base.Capabilities`).
- ``duckdb.py``, with ``source.py`` (a user's input as something to select from) and
  ``planned.py`` (statements planned once): the embedded default.
- ``spark.py``: Apache Spark SQL, classic or Connect.
- ``dialects.py``: how each engine spells SQL, as data; the statement shapes that differ are
  macros in ``sql/dialects/``.

Adding an engine is a module here, a :class:`~sqlnb.engines.dialects.Dialect` subclass (and
its ``sql/dialects/<name>.sql``), and a branch in :func:`engine_for`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Engine


def _is_spark_session(con: Any) -> bool:
    return type(con).__module__.startswith("pyspark.") and type(con).__name__ == "SparkSession"


def engine_for(con: Any) -> Engine:
    """The engine for a user's connection object (``None``: a private in-memory DuckDB).

    A path is refused with how to open it. (The engines are imported here, when a
    connection is first wrapped, so that importing a dialect never imports an engine.)"""
    import duckdb

    from ..errors import InvalidParameterError
    from .base import Engine
    from .duckdb import DuckDBEngine
    from .spark import SparkEngine

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
    if _is_spark_session(con):
        return SparkEngine(con)
    raise InvalidParameterError(
        f"con must be a DuckDB connection (duckdb.connect(...)) or a SparkSession, got "
        f"{type(con).__name__}"
    )
