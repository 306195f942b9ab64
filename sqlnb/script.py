"""Fitting from SQL: the script of statements a fit runs, for the duckdb CLI or a scheduler.

A fit is a sequence of rendered templates. :func:`record` runs a model method (``fit``,
or any other method that writes through the model's templates) in a recording mode:
statements that write are collected instead of executed, reads of the existing model run
as usual, and the checks whose input the recording skipped are assumed to pass.

The Gaussian pilot query is the one write that also runs: a later statement embeds a value
read from it (the fallback shift of classes the pilot sample misses). It writes a TEMP
table, inside a transaction that is rolled back, so the database is left unchanged.
"""

from __future__ import annotations

import copy
import os
from typing import TYPE_CHECKING, Any

from .errors import InvalidParameterError
from .macros import comment_text, drop_macros
from .templates import render
from .transaction import refuse_open_transaction

if TYPE_CHECKING:  # pragma: no cover
    from .model import NaiveBayes

# Writes that also run while recording, because a later statement reads their result.
EXECUTED = frozenset({"pilot.sql"})
# Reads of tables the recording did not fill: their checks are assumed to pass.
ASSUMED = {
    "batch_size.sql": [(1,)],
    "batch_checks.sql": [],
    "batch_checks_sparse.sql": [],
    "checks.sql": [],
    "batch_nan.sql": [],  # sums are finite: no second pass with NaN treated as missing
    "batch_cancelling.sql": [],  # no Gaussian rescan around per-class shifts
}
ACTIONS = {"fit": "Fit", "fit_sparse": "Fit", "partial_fit": "Partially fit", "forget": "Forget"}


class _DeferredTransactions:
    """The model's connection, with its transactions left to the recorder."""

    defers_transactions = True

    def __init__(self, con: Any) -> None:
        self._con = con

    def begin(self) -> None:
        pass

    def commit(self) -> None:
        pass

    def rollback(self) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


def record(model: NaiveBayes, method: str, *args: Any, **kwargs: Any) -> str:
    """The SQL script that ``model.<method>(*args, **kwargs)`` would run, as one transaction.

    Sources must be table/view names or file paths (a Python object has no name a script
    could use). The database is left unchanged.
    """
    for arg in list(args[:1]) + [kwargs.get("source")]:
        if arg is not None and not isinstance(arg, (str, os.PathLike, list, tuple)):
            raise InvalidParameterError(
                "a fit script needs a source the SQL can name: a table, view or file path"
            )
    if not callable(getattr(model, method, None)):
        raise InvalidParameterError(f"NaiveBayes has no method {method!r} to record")
    statements: list[str] = []
    real = model.con
    recorder = copy.copy(model)
    recorder.con = _DeferredTransactions(real)
    recorder.sql_macros = False

    def run(template: str, **context: Any) -> Any:
        sql = render(template, **recorder._context(**context))
        statements.append(sql)
        return real.execute(sql) if template in EXECUTED else None

    def fetch(template: str, **context: Any) -> list[tuple]:
        if template in ASSUMED:
            return ASSUMED[template]
        if template == "class_count.sql":  # the classes are only known once the script runs
            priors = recorder.family.prior_list()
            return [(len(priors) if priors else recorder.family.min_classes,)]
        return real.execute(render(template, **recorder._context(**context))).fetchall()

    recorder._run = run
    recorder._fetch = fetch
    # Recording runs the pilot for real, in a transaction rolled back at the end.
    refuse_open_transaction(real, "fit_sql")
    real.begin()
    try:
        getattr(recorder, method)(*args, **kwargs)
    finally:
        real.rollback()
    # Macros from an earlier fit would no longer agree with the tables the script writes.
    drop_macros(recorder)
    return render(
        "fit_script.sql",
        statements=statements,
        action=ACTIONS.get(method, method),
        **model._context(model_comment=comment_text(model.name)),
    )
