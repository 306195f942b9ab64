"""Fitting from SQL: the script of statements a fit runs, for the duckdb CLI or a scheduler.

:func:`record` runs a model method (``fit``, or any other method that writes through the
model's engine) on a :class:`~sqlnb.engines.duckdb.RecordingEngine`, inside one transaction that
is rolled back: every statement runs, so the checks see real data and every kind of model
(``family="auto"``, per-group, text) records the same way, and the statements that write
are kept. Values a fit reads back and inlines (the Gaussian shifts, a text model's
document counts) are those of the data at recording time. The database is left unchanged.
On Spark the transaction is the engine's dry run (:meth:`SparkEngine.rolled_back`), which
keeps the statements itself; :func:`run` runs a script there (docs/spark.md).
"""

from __future__ import annotations

import copy
import os
from typing import Any

from .context import as_context
from .engines import engine_for
from .engines.duckdb import RecordingEngine
from .errors import InvalidParameterError
from .macros import drop_macros
from .scoring import comment_text

ACTIONS = {"fit": "Fit", "fit_sparse": "Fit", "partial_fit": "Partially fit", "forget": "Forget"}


def record(model: Any, method: str, *args: Any, **kwargs: Any) -> str:
    """The SQL script that ``model.<method>(*args, **kwargs)`` would run, as one transaction.

    ``model`` is the model object whose method is recorded: a copy of it runs the method
    over a recording engine, inside a transaction that is rolled back. Sources must be
    table/view names or file paths (a Python object has no name a script could use). The
    database is left unchanged.
    """
    for arg in list(args[:1]) + [kwargs.get("source")]:
        if arg is not None and not isinstance(arg, (str, os.PathLike, list, tuple)):
            raise InvalidParameterError(
                "a fit script needs a source the SQL can name: a table, view or file path"
            )
    if not callable(getattr(model, method, None)):
        raise InvalidParameterError(f"{type(model).__name__} has no method {method!r} to record")
    context = as_context(model)
    recorder = copy.copy(model)  # what it has read of the stored model is its own
    with context.engine.rolled_back("fit_sql") as dry:
        # (an engine that keeps the dry run's statements itself hands over its list)
        recording = RecordingEngine(context.engine, getattr(dry, "statements", None))
        recorder.engine, recorder.sql_macros = recording, False
        getattr(recorder, method)(*args, **kwargs)
        # Macros from an earlier fit would no longer agree with the tables the script writes.
        drop_macros(as_context(recorder))
    return context.engine.render(
        "fit/fit_script.sql",
        statements=recording.statements,
        # a fit replaces the model: run again, its script replaces the tables it created
        # (an update reads the version it replaces, so it is refused instead)
        replaced=getattr(dry, "created", []) if method in ("fit", "fit_sparse") else [],
        action=ACTIONS.get(method, method),
        **context.template_context(model_comment=comment_text(context.name)),
    )


def run(connection: Any, script: str) -> None:
    """Run a script :func:`record` (``model.fit_sql``) returned on ``connection``: a
    DuckDB connection runs it as it is; a SparkSession, which takes one statement per
    call, statement by statement (split where a statement ends, never at a semicolon
    inside a string literal, a quoted name or a comment: the engine's own splitting of
    the scripts it renders, :func:`sqlnb.engines.spark.split_statements`)."""
    engine_for(connection).execute(script)
