"""The scoring macros a model owns: created, refreshed and dropped with its writes.

A fit creates in the model's database a few DuckDB macros that embed the fitted
parameters or read them from the views ``<name>_scoring_params`` and
``<name>_explain_params`` (over the statistics tables, so they are never stale), so any
DuckDB client can score rows without sqlnb::

    SELECT *, churn_predict(t) AS prediction FROM customers t;
    SELECT churn_predict_proba(p).yes FROM read_parquet('new/*.parquet') p;
    SELECT * FROM churn_score('customers');

Their text is the scoring compiler's (:func:`sqlnb.compiler.macros_sql`, which also
renders ``to_sql``); this module decides when to write them and owns the objects.

>>> macro_names("churn")["joint"]
'churn_joint_log_likelihood'
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from . import ownership, scoring
from .compiler import (
    explain_macro_sql,
    explain_params_sql,
    explain_reads_view,
    functions_sql,
    macro_names,
    macros_sql,
    params_table_name,
)
from .context import relation_name

if TYPE_CHECKING:  # pragma: no cover
    from .context import ModelContext

__all__ = [
    "create_macros",
    "drop_macros",
    "functions_text",
    "macro_names",
    "params_table_name",
    "read_current_view",
]


def create_macros(model: ModelContext, view: bool = True) -> None:
    """(Re)create the model's scoring macros (and, unless not ``view``, the parameter views
    beside them: ``<name>_scoring_params``, which the macros read where the weight matrix
    does not apply, and ``<name>_explain_params``, which the explain macro reads where
    :func:`sqlnb.compiler.explain_reads_view`).

    Called at the end of every write, inside its transaction, so the macros (which hold
    the parameters, see :func:`sqlnb.scoring.weight_matrix`) always agree with the
    statistics tables: both commit or roll back together. ``view=False``: the views are
    there and current (the write changed no class, feature or hyperparameter), so only
    the joint log-likelihood macro, which holds the numbers, is written again (the others
    call it by name, and the explain macro reads its view).
    """
    model.invalidate()
    try:
        # the parameters first: their read (in the write's transaction) reads the metadata
        # row the write just wrote (a table: no look at the catalog), which everything
        # below then takes from the cache
        model.state.meta_written = True
        model.parameters()
        model.state.meta_written = False
        name = params_table_name(model.name)
        explain_name = relation_name(model.name, "explain_params")
        arrays = _arrays(model)
        reads_view = explain_reads_view(model)
        if not view:
            pass
        elif arrays:  # the parameters as rows of the view <name>_scoring_params
            if ownership.existing(model, [name]).get(name.lower()) == "TABLE":
                # a model written before the view: its parameter table goes
                ownership.release(model, [name])
            model.run("score/scoring_params.sql", kind=model.family.array_kind)
        else:
            ownership.release(model, [name])
        if view and reads_view:
            model.engine.execute(explain_params_sql(model))
        elif view:
            ownership.release(model, [explain_name])
        model.engine.execute(macros_sql(model, arrays=arrays, joint_only=not view))
        explain = explain_macro_sql(model) if view or not reads_view else None
        if explain:
            model.engine.execute(explain)
    finally:
        # The caches were filled from uncommitted state; the caller refreshes them.
        model.state.meta_written = False
        model.invalidate()


def functions_text(staged: ModelContext, owner: ModelContext, *, kept_shape: bool = False) -> str:
    """The statements of the model's stored scoring functions (engines that store
    functions, whose text embeds every parameter), compiled from the parameters of
    ``staged``, the model's context over a staged write's new version, before the switch
    (see ``Pipeline.finish``). What was read is kept for ``owner``'s first use after the
    write (``ModelContext.keep_after_write``); :func:`create_functions` writes the text.
    ``kept_shape``: the write kept the model's classes and features, so where the
    functions are all there only the one holding the parameters is re-created."""
    joint_only = kept_shape and _functions_present(owner)
    text = functions_sql(staged, joint_only=joint_only)
    owner.keep_after_write(staged)
    return text


def _functions_present(model: ModelContext) -> bool:
    """Whether every scoring function of the model is in its database: as the record of
    the write before this one says (the metadata read at the start of this one, which
    lists what that write created), else one look at the catalog's functions."""
    functions = [name for role, name in macro_names(model.name).items()
                 if role in ("joint", "predict", "predict_proba", "predict_log_proba")]
    recorded = (model.state.meta or {}).get("relations")
    if recorded is not None:
        return {name.lower() for name in functions} <= {
            name.lower() for name in json.loads(recorded)}
    return len(ownership.existing(model, functions)) == len(functions)


def create_functions(model: ModelContext, text: str) -> None:
    """Write the scoring functions :func:`functions_text` compiled (after the switch)."""
    ownership.release(model, [params_table_name(model.name)])
    model.engine.execute(text)


def read_current_view(model: ModelContext) -> bool:
    """Whether ``model``'s parameter views are there (``<name>_scoring_params``, and
    ``<name>_explain_params`` where the explain macro reads it), as the look at the catalog
    that came with its metadata read found: then an update that changes no class, feature
    or hyperparameter leaves them and the macros that only read them as they are (they read
    the new statistics); the joint log-likelihood macro, which holds the parameters, is
    re-created all the same."""
    return (_arrays(model) and model.state.scoring_params_kind == "VIEW"
            and (model.state.explain_params_kind == "VIEW" or not explain_reads_view(model)))


def _arrays(model: ModelContext) -> bool:
    """Whether the macros read their parameters from the view ``<name>_scoring_params``
    (DuckDB's array form; Spark's functions always embed them)."""
    return model.dialect.stored_scoring == "macros" and scoring.covered(model)


def drop_macros(model: ModelContext) -> None:
    """Remove the scoring macros the model owns (a long-input model has none), and the
    parameter view they read."""
    ownership.release(model, [*macro_names(model.name).values(),
                              params_table_name(model.name),
                              relation_name(model.name, "explain_params")])
