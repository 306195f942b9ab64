"""Classification metrics computed in SQL, equal to scikit-learn's on the same predictions.

One scan of the predictions fills a small confusion table (true x predicted label, with
each cell's summed log loss); accuracy, per-class precision/recall/F1, macro and weighted
F1 and the log loss are SQL over that table, so memory does not grow with the rows.

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> rel = con.sql("SELECT * FROM (VALUES ('a', 'a'), ('a', 'b'), ('b', 'b')) AS t(y, prediction)")
>>> sqlnb.evaluate(con, rel, "y")["accuracy"]
0.6666666666666666
"""

from __future__ import annotations

import itertools
import os
import sys
from typing import TYPE_CHECKING, Any

import duckdb

from .engines import engine_for
from .engines.base import Engine
from .errors import EmptyInputError, UnknownColumnError
from .validation import check_output_clashes

if TYPE_CHECKING:  # pragma: no cover
    from .context import ModelContext

EPS = sys.float_info.epsilon  # scikit-learn clips probabilities to [eps, 1 - eps]
_counter = itertools.count()


def evaluate(
    con: duckdb.DuckDBPyConnection,
    predictions: Any,
    target: str,
    *,
    prediction: str = "prediction",
    proba: dict[Any, str] | None = None,
) -> dict[str, Any]:
    """Metrics of any relation holding true labels and predictions.

    ``predictions`` is anything sqlnb can read (table or view name, file, relation,
    DataFrame); ``target`` and ``prediction`` name its columns. ``proba`` maps each class
    label to the column of its predicted probability; without it ``log_loss`` is None.

    Returns a dict: ``n``, ``accuracy``, ``macro_f1``, ``weighted_f1``, ``log_loss``,
    ``labels`` (sorted), per-label lists ``precision``, ``recall``, ``f1`` and ``support``,
    and ``confusion_matrix`` (rows: true label, columns: predicted label, as scikit-learn).
    """
    engine = engine_for(con)
    d = engine.dialect
    src = engine.source(predictions)
    try:
        for column in [target, prediction, *(proba or {}).values()]:
            if column not in src.columns:
                raise UnknownColumnError(f"column {column!r} is not in the predictions")
        probas = [{"label": d.lit(label), "column": d.ident(column)}
                  for label, column in (proba or {}).items()]
        return _metrics(engine, src.sql, None, d.ident(target), d.ident(prediction), probas)
    finally:
        engine.release(src)


def evaluate_model(model: ModelContext, source: Any, target: str | None = None) -> dict[str, Any]:
    """Score ``source`` with ``model`` and compare with its ``target`` column (in SQL)."""
    from .compiler import scoring_sql
    from .scoring import coerced_columns

    target = model.target if target is None else target
    engine, d = model.engine, model.dialect
    src = engine.source(source)
    try:
        if target not in src.columns:
            raise UnknownColumnError(f"target column {target!r} is not in the source")
        missing = [f for f in model.features_ if f not in src.columns]
        if missing:
            raise UnknownColumnError(f"the source lacks feature column(s) {missing}")
        model.parameters()  # metadata and parameters, read together
        check_output_clashes(src.columns, set())  # the columns below are sqlnb's own
        prediction = "__sqlnb_prediction"
        prefix = "__sqlnb_proba_"
        scored = scoring_sql(model, src.sql, "predict_proba", prediction=prediction,
                             output_prefix=prefix,
                             columns=None if model.reads_terms else coerced_columns(model, src))
        probas = [{"label": c["label"], "column": d.ident(f"{prefix}{c['label_value']}")}
                  for c in model.parameters()["compiled"]]
        return _metrics(engine, d.ident("scored"), scored, d.ident(target),
                        d.ident(prediction), probas)
    finally:
        engine.release(src)


def _metrics(engine: Engine, relation: str, scoring: str | None, target: str,
             prediction: str, probas: list[dict[str, str]]) -> dict[str, Any]:
    confusion = engine.table(f"__sqlnb_confusion_{os.getpid()}_{next(_counter)}")
    context = {"relation": relation, "scoring": scoring, "target": target, "prediction": prediction,
               "probas": probas, "eps": EPS, "confusion": confusion}
    # A scratch table, dropped at the end: inside a caller's transaction it simply joins it.
    with engine.transaction("evaluate", join=True):
        engine.execute(engine.render("reports/evaluate_confusion.sql", **context))
        n, accuracy, macro_f1, weighted_f1, log_loss = engine.fetch(
            engine.render("reports/evaluate.sql#summary", **context))[0]
        classes = engine.fetch(engine.render("reports/evaluate.sql#classes", **context))
        cells = engine.fetch(engine.render("reports/evaluate.sql#matrix", **context))
        engine.execute(engine.render("reports/evaluate.sql#drop", **context))
    if not n:
        raise EmptyInputError(
            "there are no labelled rows to evaluate: the source has no rows, or its target "
            "column is NULL in every row"
        )
    labels = [row[0] for row in classes]
    k = len(labels)
    matrix = [[cells[i * k + j][2] for j in range(k)] for i in range(k)]
    return {
        "n": n,
        "accuracy": accuracy,
        "macro_f1": macro_f1,
        "weighted_f1": weighted_f1,
        "log_loss": log_loss if probas else None,
        "labels": labels,
        "precision": [row[1] for row in classes],
        "recall": [row[2] for row in classes],
        "f1": [row[3] for row in classes],
        "support": [row[4] for row in classes],
        "confusion_matrix": matrix,
    }
