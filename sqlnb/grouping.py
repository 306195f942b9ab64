"""Per-group models: one naive Bayes model per value of some columns, in one scan.

``fit(source, target, group_by="store_id")`` fits, in the same scan of the source (a
``GROUP BY GROUPING SETS ((store_id, class), (class))``), one model per store and a pooled
model over every row. The pooled model lives in the model's ordinary tables, so everything
that works on an ordinary model works on it; the groups' statistics live in
``<name>_group_class_stats`` and ``<name>_group_feature_stats``, the same columns keyed by
the group columns first, with parameter views ``<name>_group_class_params`` and
``<name>_group_feature_params`` computed per group exactly as for a separate fit on the
group's rows. ``<name>_group_columns`` lists the group columns.

Scoring routes every row to its group's model; a row whose group was not seen at fit
time (or is NULL) is scored by the pooled model. A class the row's group never saw gets
probability 0.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from . import ownership
from .engines.dialects import Dialect, Expression
from .errors import (
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
    UnknownColumnError,
)
from .scoring import comment_text, with_chunks
from .validation import check_names, is_key_type

if TYPE_CHECKING:  # pragma: no cover
    from .context import ModelContext

GROUP_ROLES = ("class_stats", "feature_stats", "class_params", "feature_params")
# Column names of the statistics tables and views, which a group column cannot take.
RESERVED = frozenset({
    "class", "feature", "category", "n", "weight", "count", "mean", "m2", "n_mean", "n_m2",
    "class_index", "log_prior", "theta", "var", "epsilon", "log_prob", "log_neg_prob",
    "feature_all", "n_categories", "min_weight", "__sqlnb_pooled",
})


def group_specs(columns: dict[str, str], group_by: str | list[str], target: str,
                features: list[dict[str, Any]], weight: str | None,
                dialect: Dialect) -> list[dict[str, Any]]:
    """Check ``group_by`` against the source and describe each group column."""
    names = [group_by] if isinstance(group_by, str) else check_names("group_by", group_by)
    if not names or len(set(names)) != len(names):
        raise InvalidParameterError("group_by needs one or more distinct column names")
    taken = {target, weight, *(f["name"] for f in features)}
    specs = []
    for name in names:
        if not isinstance(name, str) or name not in columns:
            raise UnknownColumnError(f"group column {name!r} is not in the source")
        if name in taken:
            raise InvalidParameterError(
                f"group column {name!r} cannot also be the target, the weight or a feature"
            )
        if name.lower() in RESERVED or (name.lower().startswith("c") and name[1:].isdigit()):
            raise InvalidParameterError(
                f"group column {name!r} has the name of a column of the statistics tables; "
                f"rename it in the source (SELECT *, {name} AS {name}_id ...)"
            )
        if not is_key_type(columns[name], dialect):
            raise InvalidDataError(
                f"group column {name!r} has type {columns[name]}, which cannot key the "
                f"per-group models: convert it to text or numbers first, e.g. "
                f"CAST({dialect.ident(name)} AS VARCHAR)")
        specs.append({"name": name, "column": dialect.ident(name), "type": columns[name]})
    return specs


def group_tables(model: ModelContext, groups: list[dict[str, Any]], part: str | None = None,
                 own_batch: bool = False) -> dict[str, Any]:
    """The relations of the per-group models, by role (as ``model.tables``), and the groups.

    ``part``: of one part of a model with several (``family="auto"``), whose statistics
    are ``<name>_group_<part>_stats``; ``own_batch``: the part's batch has a table of its
    own (as the pooled part's has)."""
    t = dict(model.tables)
    for role in GROUP_ROLES:
        t[role] = model.engine.table(f"{model.name}_group_{role}")
    if part is not None:
        t["feature_stats"] = model.engine.table(f"{model.name}_group_{part}_stats")
        t["feature_params"] = model.engine.table(f"{model.name}_group_{part}_params")
    suffix = f"_{part}" if own_batch else ""
    t["batch"] = model.engine.table(f"__sqlnb_group_batch_{model.name}{suffix}")
    t["groups"] = groups
    return t


def group_context(model: ModelContext, t: dict[str, Any]) -> dict[str, Any]:
    return {"t": t, "group_columns": model.engine.table(f"{model.name}_group_columns"),
            "model_comment": comment_text(model.name)}


def drop_groups(model: ModelContext) -> None:
    """Remove the per-group tables the model owns (an ordinary fit replacing a grouped one),
    a per-group text model's group models and table of groups included
    (``<name>_text_group_<i>_*``, ``<name>_text_groups``: see :mod:`sqlnb.text`)."""
    prefix = f"{model.name}_text_group".lower()
    text_groups = sorted(name for name in ownership.owned(model) if name.startswith(prefix))
    ownership.release(model, ownership.names(model.name, "groups", "group_parts") + text_groups)


def read_groups(model: ModelContext) -> list[dict[str, Any]]:
    """The group columns of a per-group model (from its spec); empty for an ordinary model."""
    try:
        groups = model.spec.groups
    except NotFittedError:
        return []
    return [{"name": name, "column": model.dialect.ident(name), "type": sql_type}
            for name, sql_type in groups]


def probe_groups(model: ModelContext) -> list[dict[str, Any]]:
    """The group columns, from the group tables (for models written before the spec)."""
    if f"{model.name}_group_columns".lower() not in ownership.owned(model):
        return []  # no groups, or a relation of that name that is not this model's
    context = group_context(model, group_tables(model, []))
    exists = model.fetch("catalog/read_groups.sql#exists", group_columns_name=f"{model.name}_group_columns", **context)
    if not exists[0][0]:
        return []
    rows = model.fetch("catalog/read_groups.sql#columns", **context)
    return [{"name": name, "column": model.dialect.ident(name), "type": sql_type}
            for name, sql_type in rows]


def create_group_tables(model: ModelContext, groups: list[dict[str, Any]],
                        class_type: str) -> None:
    """The (empty) per-group tables, and the table of group columns (filled)."""
    context = group_context(model, group_tables(model, groups))
    model.run("fit/create_groups.sql", class_type=class_type, **context)


def group_parameters(model: ModelContext, groups: list[dict[str, Any]],
                     features: list[dict[str, Any]]) -> list[tuple]:
    """The per-group parameter views over the per-group statistics; returns the problems
    their checks find, as (feature, problem) rows."""
    context = group_context(model, group_tables(model, groups))
    model.run("score/params.sql", priors=model.family.prior_list(),
               fit_prior=model.family.fit_prior(), **context)
    return model.fetch("fit/checks.sql", features=features, **context)


def group_parts(model: ModelContext, groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The parts of a per-group model (one, or one per family of a ``family="auto"``
    model, in the order the pooled model has them): family, features, group tables and
    the name the part's relations carry (``None``: the model is its one part)."""
    return [{"sub": sub, "features": features, "t": group_tables(model, groups, name),
             "name": name}
            for name, sub, features in model.family.parts_of(model.meta["features"])]


def group_models(model: ModelContext,
                 groups: list[dict[str, Any]]) -> dict[tuple, dict[Any, dict[str, Any]]]:
    """Each group's classes (by label) with their constant and, per part, scoring terms."""
    parts = group_parts(model, groups)
    context = group_context(model, parts[0]["t"])
    classes = model.fetch("catalog/read_group_classes.sql#classes", **context)
    log_priors = {index: log_prior for index, _, log_prior in model.fetch(
        "catalog/read_params.sql#classes", family=parts[0]["sub"], **context)}
    # each part's constant carries the log prior once; the sum keeps one of them
    constants = {index: -(len(parts) - 1) * log_prior if len(parts) > 1 else 0.0
                 for index, log_prior in log_priors.items()}
    part_terms = []
    for part in parts:
        part_context = {"family": part["sub"], **group_context(model, part["t"])}
        for index, constant in model.fetch("catalog/read_params.sql#constants", **part_context):
            constants[index] += constant
        rows = model.fetch("catalog/read_params.sql#terms", **part_context)
        # e.g. bernoulli's log_neg_prob, poisson's rate after the coefficient
        part_terms.append(part["sub"].read_terms(rows, part["sub"].scoring_parameters[1:]))
    order = {f["name"]: i for i, f in enumerate(model.meta["features"])}
    by_group: dict[tuple, dict[Any, dict[str, Any]]] = {}
    for class_index, label, *values in classes:
        by_group.setdefault(tuple(values), {})[label] = {
            "constant": constants[class_index],
            "parts": [sorted(terms[class_index].values(), key=lambda term: order[term["name"]])
                      for terms in part_terms],
        }
    return by_group


GROUP_ALIAS = "__sqlnb_group"


def group_parameter_table(model: ModelContext, row: str | None = None,
                          columns: dict[str, str] | None = None,
                          dialect: Dialect | None = None) -> dict[str, Any] | None:
    """The per-group models as one row of parameters per group, for scoring by a join.

    Returns the table's quoted ``columns`` (``names``: as written), its ``rows`` (SQL
    literals; NULL for a class the group never saw), the group columns to join on, and per pooled class index a
    ``model`` whose constant and coefficients are ``Expression`` columns of the joined row,
    so each family's ``jll`` template renders unchanged (a ``family="auto"`` model's as
    parts, as :func:`sqlnb.mixed.compile_mixed` composes the pooled one). Features and
    group columns are read from the relation ``source``, or with ``row`` from that struct
    (a macro's row argument). ``columns`` maps feature names to other expressions to read
    them from; ``dialect`` (default: the model engine's) is the SQL it is written in.
    ``None`` for an ordinary model.
    """
    dialect = dialect or model.dialect
    compiled = model.parameters()  # groups and their models are read with the parameters
    groups = compiled.get("groups")
    if not groups:
        return None
    by_group = compiled["group_models"]
    parts = group_parts(model, groups)

    def slot(*pieces: Any) -> str:
        return "__sqlnb_" + "_".join(str(p) for p in pieces)

    def column(name: str) -> Expression:
        return Expression(dialect.column(GROUP_ALIAS, name))

    def value(name: str) -> str:
        return dialect.column("source", name) if row is None else dialect.field(row, name)

    categories: dict[str, list[str]] = defaultdict(list)  # every category any group knows
    for models in by_group.values():
        for class_model in models.values():
            for terms in class_model["parts"]:
                for term in terms:
                    for category, _ in term.get("categories", []):
                        if category not in categories[term["name"]]:
                            categories[term["name"]].append(category)
    order = {f["name"]: i for i, f in enumerate(model.meta["features"])}
    slots, models_by_index = ["__sqlnb_matched"], {}
    for class_index, label, _ in model.parameters()["classes"]:
        slots.append(slot(class_index, "constant"))
        part_models = []
        for part in parts:
            terms = []
            for f in part["features"]:
                i = order[f["name"]]
                term = {"name": f["name"], "column": (columns or {}).get(f["name"],
                                                                       value(f["name"]))}
                for name in part["sub"].scoring_parameters:
                    slots.append(slot(class_index, i, name))
                    term[name] = column(slots[-1])
                if part["sub"].per_category:
                    term["categories"] = []
                    for j, category in enumerate(categories[f["name"]]):
                        slots.append(slot(class_index, i, "v", j))
                        term["categories"].append((category, column(slots[-1])))
                terms.append(term)
            part_models.append({"template": part["sub"].template, "p": part["sub"].params,
                                "c": {"constant": 0.0, "terms": terms}})
        constant = column(slot(class_index, "constant"))
        if parts[0]["name"] is not None:  # parts of their own (a model of one part too)
            class_model = {"constant": constant, "terms": [], "parts": part_models}
            class_model["chunks"] = [class_model]  # the parts are summed as one
        else:
            class_model = with_chunks({"constant": constant, "terms": part_models[0]["c"]["terms"]})
        models_by_index[class_index] = class_model
    rows = []
    for values, models in by_group.items():
        literals = [dialect.lit(v, g["type"]) for g, v in zip(groups, values)]
        literals.append(dialect.lit(True))
        for _, label, _ in model.parameters()["classes"]:
            class_model = models.get(label)
            literals.append(dialect.lit(None if class_model is None else class_model["constant"]))
            for k, part in enumerate(parts):
                for j, f in enumerate(part["features"]):
                    term = None if class_model is None else class_model["parts"][k][j]
                    for name in part["sub"].scoring_parameters:
                        literals.append(dialect.lit(None if term is None else term.get(name)))
                    if part["sub"].per_category:
                        known = dict(term.get("categories", [])) if term else {}
                        for category in categories[f["name"]]:
                            coef = None if term is None else known.get(category, term["unseen"])
                            literals.append(dialect.lit(coef))
        rows.append(literals)
    return {
        "columns": [dialect.ident(g["name"]) for g in groups] + [dialect.ident(s) for s in slots],
        "names": [g["name"] for g in groups] + slots,  # (as written, e.g. STRUCT fields)
        "join": [(dialect.column(GROUP_ALIAS, g["name"]), value(g["name"])) for g in groups],
        "rows": rows,
        "matched": column("__sqlnb_matched"),
        "models": models_by_index,
    }


def missing_group_columns(model: ModelContext, columns: dict[str, str]) -> list[str]:
    """Group columns of a per-group model that a source to score lacks."""
    groups = model.parameters().get("groups", [])
    return [g["name"] for g in groups if g["name"] not in columns]

