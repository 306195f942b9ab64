"""The scoring compiler: a fitted model's parameters, read through its engine, made into
the statements that score rows.

``read_parameters`` reads the (small) parameter views once into per-class scoring terms
(each family's ``fill_term``, through ``Family.read_terms``); ``score_sql`` renders
``predict*``'s statement from them (``score.sql``, or for per-group models the routed
statement of :func:`sqlnb.macros.scoring_sql`). The same compiled classes render the
persisted scoring macros and ``to_sql`` (:mod:`sqlnb.macros`); :mod:`sqlnb.scoring` picks
between this ``compiled`` statement and the ``arrays`` one.

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i * 1.0 AS x FROM range(6) r(i)")
>>> model = sqlnb.NaiveBayes("demo", con=con).fit("t", "y")
>>> [c["label_value"] for c in read_parameters(model)["compiled"]]
[0, 1]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import macros, mixed, text
from .missing import plain_classes
from .scoring import OUTPUTS, with_chunks

if TYPE_CHECKING:  # pragma: no cover
    from .model import NaiveBayes


def read_parameters(model: NaiveBayes) -> dict[str, Any]:
    """The model's classes and, per class, its constant and scoring terms (feature order)."""
    if model.stored_input():
        return text.compile_classes(model)
    meta = model.meta
    if model.family.composite:
        return mixed.compile_mixed(model)
    dialect = model.dialect
    types = {f["name"]: f["type"] for f in meta["features"]}
    flow = model.pipeline
    classes = flow.fetch("read_params.sql", what="classes")
    constants = dict(flow.fetch("read_params.sql", what="constants"))
    order = {f["name"]: i for i, f in enumerate(meta["features"])}
    names, rows = flow.fetch_with_names("read_params.sql", what="terms")
    terms = model.family.read_terms(rows, names[3:], lambda feature: {
        "column": dialect.ident(feature), "family": model.family.name,
        "guard": dialect.kind(types.get(feature)) == "float"})
    compiled_classes = []
    for class_index, label, _ in classes:
        class_terms = sorted(terms[class_index].values(), key=lambda t: order[t["name"]])
        compiled_classes.append(with_chunks({
            "index": class_index,
            "label_value": label,
            "label": dialect.lit(label, meta["target_type"]),
            "constant": constants[class_index],
            "terms": class_terms,
            "jll": dialect.ident(f"__sqlnb_jll_{class_index}"),
        }))
    return {"classes": classes, "compiled": compiled_classes}


def score_sql(model: NaiveBayes, source_sql: str, output: str, keep: list[str],
              prediction: str = "prediction", columns: dict[str, str] | None = None) -> str:
    """The ``compiled`` scoring statement for a FROM-clause fragment (``predict*``):
    ``columns`` maps feature names to the SQL expressions that read them."""
    compiled = model.parameters()
    if compiled.get("groups"):  # per-group models: rows are routed to their group
        return macros.scoring_sql(model, source_sql, output, prediction=prediction,
                                  output_prefix=OUTPUTS[output], columns=columns)
    dialect = model.dialect
    prefix = OUTPUTS[output]
    classes = []
    for c in (macros.with_columns(c, columns) for c in compiled["compiled"]):
        out = None if prefix is None else dialect.ident(f"{prefix}{c['label_value']}")
        classes.append({**c, "output": out})
    plain, guarded = plain_classes(classes)
    return model.pipeline.render(
        "score.sql",
        source=source_sql,
        output=output,
        keep=[dialect.ident(k) for k in keep],
        classes=plain,
        robust=classes if guarded else None,
        prediction=dialect.ident(prediction),
    )
