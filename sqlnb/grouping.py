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
from .dialect import Dialect, Expression
from .errors import (
    EmptyInputError,
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
    UnknownColumnError,
    describe_problems,
)
from .scoring import comment_text, with_chunks
from .validation import check_names, is_key_type

if TYPE_CHECKING:  # pragma: no cover
    from .model import NaiveBayes
    from .source import Source

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


def group_tables(model: NaiveBayes, groups: list[dict[str, Any]]) -> dict[str, Any]:
    """The relations of the per-group models, by role (as ``model.tables``), and the groups."""
    t = dict(model.tables)
    for role in GROUP_ROLES:
        t[role] = model.dialect.ident(f"{model.name}_group_{role}")
    t["batch"] = model.dialect.ident(f"__sqlnb_group_batch_{model.name}")
    t["groups"] = groups
    return t


def group_context(model: NaiveBayes, t: dict[str, Any]) -> dict[str, Any]:
    return {"t": t, "group_columns": model.dialect.ident(f"{model.name}_group_columns"),
            "model_comment": comment_text(model.name)}


def drop_groups(model: NaiveBayes) -> None:
    """Remove the per-group tables the model owns (an ordinary fit replacing a grouped one)."""
    ownership.release(model, ownership.names(model.name, "groups"))


def read_groups(model: NaiveBayes) -> list[dict[str, Any]]:
    """The group columns of a per-group model (from its spec); empty for an ordinary model."""
    try:
        groups = model.spec.groups
    except NotFittedError:
        return []
    return [{"name": name, "column": model.dialect.ident(name), "type": sql_type}
            for name, sql_type in groups]


def probe_groups(model: NaiveBayes) -> list[dict[str, Any]]:
    """The group columns, from the group tables (for models written before the spec)."""
    if f"{model.name}_group_columns".lower() not in ownership.owned(model):
        return []  # no groups, or a relation of that name that is not this model's
    context = group_context(model, group_tables(model, []))
    exists = model.pipeline.fetch("read_groups.sql", what="exists",
                          group_columns_name=f"{model.name}_group_columns", **context)
    if not exists[0][0]:
        return []
    rows = model.pipeline.fetch("read_groups.sql", what="columns", **context)
    return [{"name": name, "column": model.dialect.ident(name), "type": sql_type}
            for name, sql_type in rows]


def fit_grouped(model: NaiveBayes, src: Source, spec: dict[str, Any]) -> None:
    """A per-group fit inside the caller's transaction: one scan, then per-group and pooled
    statistics, through the model's :class:`~sqlnb.pipeline.Pipeline`."""
    features, groups = spec["features"], spec["groups"]
    t = group_tables(model, groups)
    context = group_context(model, t)
    flow = model.pipeline
    if model.family.shifted:
        flow.shift(src, spec["target_sql"], features)
    flow.create(spec["target_type"])
    flow.run("insert_features.sql", features=features)
    drop_groups(model)
    create_group_tables(model, groups, spec["target_type"])
    combined = model.dialect.ident(f"__sqlnb_grouped_batch_{model.name}")
    flow.run("batch.sql", source=src.sql, target=spec["target_sql"],
             weight=spec["weight_sql"], features=features,
             batch_options=model.family.batch_options(), t={**t, "batch": combined})
    flow.run("split_batch.sql", t=t, combined=combined, pooled=model.tables["batch"])
    if flow.fetch("batch_size.sql")[0][0] == 0:
        raise EmptyInputError(f"the target column {spec['target']!r} has no labelled rows")
    flow.check("batch_checks.sql", features=features)
    weighted = spec["weight"] is not None
    flow.apply(features, weighted=weighted, checked=True, **context)
    flow.run("drop_batch.sql", **context)
    fewest, most = flow.fetch("read_group_classes.sql", what="sizes", **context)[0]
    if most is None:  # no labelled row has a (non-NULL) group
        names = [g["name"] for g in groups]
        raise InvalidDataError(
            f"the group column(s) {names} are NULL in every labelled row, so there is no "
            "group to fit a model for: leave group_by out, or fill the column first"
        )
    priors = model.family.prior_list()
    if priors is not None and (fewest, most) != (len(priors), len(priors)):
        raise InvalidParameterError(
            f"{len(priors)} priors were given, but the groups have {fewest} to {most} "
            "classes: with group_by, every group needs every class"
        )
    problems = group_parameters(model, groups, features)
    if problems:
        raise InvalidDataError(describe_problems(problems))
    flow.apply(features, weighted=weighted, checked=True)
    flow.finish(features, spec["target"], spec["target_type"], spec["weight"],
                kind={"groups": [[g["name"], g["type"]] for g in groups]})


def create_group_tables(model: NaiveBayes, groups: list[dict[str, Any]],
                        class_type: str) -> None:
    """The (empty) per-group tables, and the table of group columns (filled)."""
    context = group_context(model, group_tables(model, groups))
    model.pipeline.run("create_groups.sql", class_type=class_type, **context)


def group_parameters(model: NaiveBayes, groups: list[dict[str, Any]],
                     features: list[dict[str, Any]]) -> list[tuple]:
    """The per-group parameter views over the per-group statistics; returns the problems
    their checks find, as (feature, problem) rows."""
    context = group_context(model, group_tables(model, groups))
    model.pipeline.run("params.sql", priors=model.family.prior_list(),
               fit_prior=model.family.fit_prior(), **context)
    return model.pipeline.fetch("checks.sql", features=features, **context)


def group_models(model: NaiveBayes,
                  groups: list[dict[str, Any]]) -> dict[tuple, dict[Any, dict[str, Any]]]:
    """Each group's classes (by label) with their constant and scoring terms."""
    t = group_tables(model, groups)
    context = group_context(model, t)
    classes = model.pipeline.fetch("read_group_classes.sql", what="classes", **context)
    constants = dict(model.pipeline.fetch("read_params.sql", what="constants", **context))
    terms = _terms(model, model.pipeline.fetch("read_params.sql", what="terms", **context))
    order = {f["name"]: i for i, f in enumerate(model.meta["features"])}
    by_group: dict[tuple, dict[Any, dict[str, Any]]] = {}
    for class_index, label, *values in classes:
        by_group.setdefault(tuple(values), {})[label] = {
            "constant": constants[class_index],
            "terms": sorted(terms[class_index].values(), key=lambda term: order[term["name"]]),
        }
    return by_group


GROUP_ALIAS = "__sqlnb_group"


def group_parameter_table(model: NaiveBayes, row: str | None = None,
                          columns: dict[str, str] | None = None) -> dict[str, Any] | None:
    """The per-group models as one row of parameters per group, for scoring by a join.

    Returns the table's quoted ``columns``, its ``rows`` (SQL literals; NULL for a class the
    group never saw), the group columns to join on, and per pooled class index a
    ``model`` whose constant and coefficients are ``Expression`` columns of the joined row,
    so each family's ``jll`` template renders unchanged. Features and group columns are
    read from the relation ``source``, or with ``row`` from that struct (a macro's row
    argument). ``columns`` maps feature names to other expressions to read them from.
    ``None`` for an ordinary model.
    """
    compiled = model.parameters()  # groups and their models are read with the parameters
    groups = compiled.get("groups")
    if not groups:
        return None
    by_group = compiled["group_models"]
    names = model.family.scoring_parameters

    def slot(*parts: Any) -> str:
        return "__sqlnb_" + "_".join(str(p) for p in parts)

    def column(name: str) -> Expression:
        return Expression(model.dialect.column(GROUP_ALIAS, name))

    def value(name: str) -> str:
        return model.dialect.column("source", name) if row is None else model.dialect.field(row, name)

    categories: dict[str, list[str]] = defaultdict(list)  # every category any group knows
    for models in by_group.values():
        for class_model in models.values():
            for term in class_model["terms"]:
                for category, _ in term.get("categories", []):
                    if category not in categories[term["name"]]:
                        categories[term["name"]].append(category)
    slots, models_by_index = ["__sqlnb_matched"], {}
    for class_index, label, _ in model.parameters()["classes"]:
        slots.append(slot(class_index, "constant"))
        terms = []
        for i, f in enumerate(model.meta["features"]):
            term = {"name": f["name"], "column": (columns or {}).get(f["name"],
                                                                   value(f["name"]))}
            for name in names:
                slots.append(slot(class_index, i, name))
                term[name] = column(slots[-1])
            if model.family.per_category:
                term["categories"] = []
                for j, category in enumerate(categories[f["name"]]):
                    slots.append(slot(class_index, i, "v", j))
                    term["categories"].append((category, column(slots[-1])))
            terms.append(term)
        models_by_index[class_index] = with_chunks({
            "constant": column(slot(class_index, "constant")), "terms": terms})
    rows = []
    for values, models in by_group.items():
        literals = [model.dialect.lit(v, g["type"]) for g, v in zip(groups, values)]
        literals.append(model.dialect.lit(True))
        for _, label, _ in model.parameters()["classes"]:
            class_model = models.get(label)
            literals.append(model.dialect.lit(None if class_model is None else class_model["constant"]))
            for i, f in enumerate(model.meta["features"]):
                term = None if class_model is None else class_model["terms"][i]
                for name in names:
                    literals.append(model.dialect.lit(None if term is None else term.get(name)))
                if model.family.per_category:
                    known = dict(term.get("categories", [])) if term else {}
                    for category in categories[f["name"]]:
                        coef = None if term is None else known.get(category, term["unseen"])
                        literals.append(model.dialect.lit(coef))
        rows.append(literals)
    return {
        "columns": [g["column"] for g in groups] + [model.dialect.ident(s) for s in slots],
        "join": [(model.dialect.column(GROUP_ALIAS, g["name"]), value(g["name"])) for g in groups],
        "rows": rows,
        "matched": column("__sqlnb_matched"),
        "models": models_by_index,
    }


def _terms(model: NaiveBayes, rows: list[tuple]) -> dict[int, dict]:
    """Scoring parameters per class index and feature, as ``NaiveBayes.parameters`` reads
    them (the columns are the group table's, filled in by ``group_parameter_table``)."""
    # e.g. bernoulli's log_neg_prob, poisson's rate after the coefficient
    return model.family.read_terms(rows, model.family.scoring_parameters[1:])


def missing_group_columns(model: NaiveBayes, columns: dict[str, str]) -> list[str]:
    """Group columns of a per-group model that a source to score lacks."""
    groups = model.parameters().get("groups", [])
    return [g["name"] for g in groups if g["name"] not in columns]

