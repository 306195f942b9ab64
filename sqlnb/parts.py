"""Models made of parts, with or without groups: the one write flow they share.

A model is a set of *parts* over one class table: each part is a family over some
columns with a statistics table of its own (a single-family model has one part; a
``family="auto"`` model one per family present, see :mod:`sqlnb.mixed`). A per-group
model (``group_by``, see :mod:`sqlnb.grouping`) keeps the same parts twice: pooled, over
every row, and keyed by the group columns. Each of these two *layouts* is a list of parts
in the same order.

Every write of such a model is the same flow, whatever its parts and groups; only the
sign and where the batch comes from differ:

1. ``create`` the tables (a fit, or the first ``partial_fit``);
2. ``declare`` the classes given with ``classes=`` (pooled);
3. ``scan`` the source once per kind of batch (the column-wise parts together, each
   grouping-sets part alone), each batch split into its pooled and per-group rows;
4. ``apply`` every part's batch with a sign (+1 fit and ``partial_fit``, -1 ``forget``),
   per-group first; ``merge`` applies another model's statistics the same way;
5. after a ``forget``, ``after_forget``: nothing may go below zero, and classes (and
   groups) left without rows disappear;
6. ``finish``: the per-group parameter views and their checks, then the pooled model's
   parameters, checks, metadata and scoring macros.

The caller runs it inside one ``engine.transaction``: a failure leaves the previous model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from . import compiler, grouping, mixed, ownership, text
from .context import ModelContext, Readers
from .errors import (
    InvalidDataError,
    InvalidParameterError,
    UnknownColumnError,
    describe_problems,
)
from .families import PART_FAMILIES, Family
from .missing import scan_batch
from .pipeline import feature_origins, pipeline_of, refuse
from .spec import jsonable
from .validation import check_label_type, check_names, check_weight_type, check_weights

if TYPE_CHECKING:  # pragma: no cover
    from .engines.dialects import Dialect
    from .engines.source import Source


def kinds(model: ModelContext, grouped: bool, terms: bool = False) -> tuple[str, ...]:
    """The kinds of relation names (see :func:`sqlnb.ownership.names`) a write claims
    (``terms``: a term model's tables too)."""
    composite = model.family.composite
    return (("base", "macros") + (("parts",) if composite else ())
            + (("groups",) if grouped else ()) + (("group_parts",) if grouped and composite
                                                   else ()) + (("text",) if terms else ()))


def statistics_parts(family: Family, features: list[dict[str, Any]], grouped: bool = False
                     ) -> list[dict[str, Any]]:
    """The statistics tables of the parts of a fitted model of ``family`` over ``features``
    (as its metadata lists them), pooled or, if ``grouped``, keyed by the group columns: per
    part its ``role`` (the table is ``<model>_<role>``, an export's file ``<role>.parquet``),
    family (``sub``), ``features`` and the ``names`` of the features its table is limited
    to (None for the model's own part, which has every feature)."""
    prefix = "group_" if grouped else ""
    return [{"role": f"{prefix}{name or 'feature'}_stats", "sub": sub, "features": members,
             "names": None if name is None else [f["name"] for f in members]}
            for name, sub, members in family.parts_of(features)]


def layout(model: ModelContext, features: list[dict[str, Any]], family_of: dict[str, str] | None,
           groups: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The model's parts over ``features`` (``family_of``: each feature's family, for a
    model of several), pooled and, with ``groups``, per group."""
    if model.family.composite:
        pooled = mixed.batch_parts(model, features, family_of or {})
    else:
        pooled = [{"family": model.family.name, "sub": model.family, "features": features,
                   "t": dict(pipeline_of(model).stable)}]
    grouped = []
    for part in pooled if groups else []:
        own = part["sub"].long_batch and model.family.composite
        t = grouping.group_tables(model, groups,
                                  part["family"] if model.family.composite else None,
                                  own_batch=own)
        grouped.append({**part, "t": t})
    if not model.engine.capabilities.transactions:
        for part in pooled + grouped:
            _scratch_names(model, part["t"])
    return {"pooled": pooled, "grouped": grouped, "groups": groups or []}


def _scratch_names(model: ModelContext, t: dict[str, Any]) -> None:
    """On an engine without upserts in place (Spark), the name each statistics table of a
    part is rewritten under before it takes the table's name again (``sql.upsert``'s
    ``into``), unless the write staged one already: the table's own name and a suffix."""
    for role in ("class_stats", "feature_stats"):
        if "next_" + role not in t:
            t["next_" + role] = model.engine.scratch_table(t[role])


def stored_layout(model: ModelContext) -> dict[str, Any]:
    """The layout of a fitted model, from its metadata (its features name their family)."""
    features = model.meta["features"]
    family_of = {f["name"]: f.get("family", model.family.name) for f in features}
    lay = layout(model, [dict(f) for f in features], family_of, grouping.read_groups(model))
    catalog = model.catalog  # a model of an attached database
    if catalog is not None:
        prefix = model.dialect.ident(catalog) + "."
        for part in lay["pooled"] + lay["grouped"]:
            part["t"] = {role: prefix + name if isinstance(name, str)
                         and not name.startswith(prefix) else name
                         for role, name in part["t"].items()}
    return lay


def _layouts(lay: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [lay["grouped"], lay["pooled"]] if lay["grouped"] else [lay["pooled"]]


def run(model: ModelContext, part: dict[str, Any], template: str, **extra: Any) -> None:
    """A statement in the context of one part: its family and relations."""
    pipeline_of(model).run(template, family=part["sub"], **{"t": part["t"], **extra})


def fetch(model: ModelContext, part: dict[str, Any], template: str, **extra: Any) -> list[tuple]:
    return pipeline_of(model).fetch(template, family=part["sub"], **{"t": part["t"], **extra})


# ---------------------------------------------------------------------- the flow
def write(model: ModelContext, src: Source, spec: dict[str, Any], *, sign: int = 1,
          stored: dict[str, Any] | None = None, classes: list[Any] | None = None,
          keep_classes: list[Any] | None = None) -> None:
    """A fit (``stored`` None and no update: :meth:`NaiveBayes.fit`), ``partial_fit``
    (``sign=1``) or ``forget`` (``sign=-1``) of a model with parts or groups, inside the
    caller's transaction. ``stored``: the metadata before the update (None: the model is
    created); ``spec``: the batch's input specification (:func:`input_spec`)."""
    features, groups = spec["features"], spec.get("groups") or []
    class_type = stored["target_type"] if stored else spec["target_type"]
    if stored is not None:
        family_of = {f["name"]: f.get("family", model.family.name) for f in stored["features"]}
    elif model.family.composite:
        family_of = model.family.assign({f["name"]: f["type"] for f in features},
                                        model.dialect)
    else:
        family_of = None
    lay = layout(model, features, family_of, groups)
    ownership.claim(model, ownership.names(model.name, *kinds(model, bool(groups))),
                    meta=stored)
    if stored is None:
        create(model, lay, class_type)
        pipeline_of(model).run("fit/insert_features.sql", features=features)
    elif stored["params"] != jsonable(model.family.params):
        pipeline_of(model).run("update/update_features.sql", features=features)
    if classes is not None:
        declare(model, lay, classes, class_type)
    scan(model, src, spec, lay)
    if classes is not None:
        check_declared(model, lay, classes, class_type)
    apply(model, lay, weighted=spec["weight"] is not None, sign=sign)
    if sign < 0:
        after_forget(model, lay, class_type, keep_classes)
    drop_batches(model, lay)
    # an update that keeps the hyperparameters: its parameter views, which read the
    # statistics, stay current unless the batch adds or removes a class
    known = (len(stored["classes"]) if stored is not None
             and stored["params"] == jsonable(model.family.params) else None)
    finish(model, lay, features, spec["target"], class_type, spec["weight"],
           known_classes=known)


def create(model: ModelContext, lay: dict[str, Any], class_type: str) -> None:
    """The (empty) tables of every part, pooled and per group, replacing the model's
    earlier ones (of whatever kind)."""
    ownership.release(model, ownership.names(model.name, "base", "text", "parts"))
    grouping.drop_groups(model)
    pooled, grouped = lay["pooled"], lay["grouped"]
    run(model, pooled[0], "fit/create_model.sql", class_type=class_type)
    for part in pooled[1:]:
        run(model, part, "fit/part_stats_table.sql", class_type=class_type)
    if grouped:
        context = grouping.group_context(model, grouped[0]["t"])
        run(model, grouped[0], "fit/create_groups.sql", class_type=class_type, **context)
        for part in grouped[1:]:
            run(model, part, "fit/part_stats_table.sql", class_type=class_type)


def declare(model: ModelContext, lay: dict[str, Any], classes: list[Any],
            class_type: str) -> None:
    """The declared classes exist in the pooled model, with zero statistics until rows of
    them arrive (a group's model knows the classes its rows have)."""
    for part in lay["pooled"]:
        run(model, part, "fit/declare_classes.sql", classes=plain(classes), class_type=class_type,
            features=part["features"])


def check_declared(model: ModelContext, lay: dict[str, Any], classes: list[Any],
                   class_type: str) -> None:
    """A label of the batch outside the declared classes refuses it."""
    outside = fetch(model, lay["pooled"][0], "fit/undeclared_labels.sql", classes=plain(classes),
                    class_type=class_type)
    if outside:
        raise InvalidDataError(
            f"the target label(s) {[r[0] for r in outside]} in the batch are not among the "
            f"declared classes {list(classes)}"
        )


def scan(model: ModelContext, src: Source, spec: dict[str, Any], lay: dict[str, Any]) -> None:
    """The batch tables of every part: the column-wise parts in one scan, each
    grouping-sets part in one of its own; with groups, each scan's rows split into the
    pooled batch and the per-group one. Checked: an empty batch or a problem refuses it."""
    flow = pipeline_of(model)
    pooled, grouped = lay["pooled"], lay["grouped"]
    for part in pooled:
        if part["sub"].shifted:
            flow.shift(src, spec["target_sql"], part["features"], family=part["sub"],
                       t=part["t"])
    combined = model.dialect.ident(f"__sqlnb_grouped_batch_{model.name}")
    alone = [i for i, part in enumerate(pooled) if part["sub"].long_batch or len(pooled) == 1]
    together = [i for i in range(len(pooled)) if i not in alone]
    for i in alone:
        part = pooled[i]
        t = {**grouped[i]["t"], "batch": combined} if grouped else part["t"]

        def run_alone(part: dict[str, Any] = part, t: dict[str, Any] = t) -> None:
            run(model, part, "fit/batch.sql", t=t, source=src.sql, target=spec["target_sql"],
                weight=spec["weight_sql"], features=part["features"],
                batch_options=part["sub"].batch_options())

        _scan(model, run_alone, t, part["features"], lambda f, part=part: part["sub"].name,
              src, spec)
        if grouped:
            _split(model, grouped[i], combined, part["t"]["batch"])
    if together:
        wide = [pooled[i] for i in together]
        t = ({**grouped[together[0]]["t"], "batch": combined} if grouped
             else wide[0]["t"])

        def run_together() -> None:
            pipeline_of(model).run("fit/mixed_batch.sql", t=t, source=src.sql,
                               target=spec["target_sql"], weight=spec["weight_sql"],
                               parts=mixed.wide_columns(wide, spec))

        _scan(model, run_together, t, [f for part in wide for f in part["features"]],
              lambda f: f["family"], src, spec)
        if grouped:
            _split(model, grouped[together[0]], combined, wide[0]["t"]["batch"])
    if fetch(model, pooled[0], "fit/counts.sql#batch_rows")[0][0] == 0:
        flow.refuse_empty(src, spec)
    problems: list[tuple] = []
    for part in pooled:
        problems += fetch(model, part, "fit/batch_checks.sql", features=part["features"])
    refuse(problems)


def _scan(model: ModelContext, run_batch: Any, t: dict[str, Any],
          features: list[dict[str, Any]], family_of: Any, src: Source,
          spec: dict[str, Any]) -> None:
    """Run a batch query; again with NaN tests if a raw sum came out non-finite, and a
    sum still non-finite then refuses its feature, saying which value is the cause."""
    scan_batch(run_batch, lambda template, **kw: pipeline_of(model).fetch(template, t=t, **kw),
               features, family_of, model.dialect,
               lambda bad: pipeline_of(model).refuse_non_finite(src, spec["target_sql"], bad,
                                                            family_of))


def _split(model: ModelContext, part: dict[str, Any], combined: str, pooled: str) -> None:
    run(model, part, "fit/split_batch.sql", combined=combined, pooled=pooled)


def apply(model: ModelContext, lay: dict[str, Any], *, weighted: bool, sign: int = 1) -> None:
    """Upsert every part's batch with ``sign``, per group then pooled; the class totals
    come from the first part's batch."""
    for parts in _layouts(lay):
        run(model, parts[0], "update/merge.sql", features=parts[0]["features"], weighted=weighted,
            sign=sign)
        for part in parts[1:]:
            run(model, part, "update/part_merge.sql", features=part["features"], weighted=weighted,
                sign=sign)


def merge(model: ModelContext, lay: dict[str, Any], source: dict[str, Any],
          origins: tuple[list[dict[str, Any]], list[dict[str, Any]]], sign: int = 1) -> None:
    """Another model's statistics (its layout ``source``, part for part the same) as one
    more batch of every part; ``origins`` as in :meth:`Pipeline.apply_model`."""
    theirs_at, ours_at = feature_origins(origins[0]), feature_origins(origins[1])
    shifts = [(name, origin - ours_at.get(name, 0.0)) for name, origin in theirs_at.items()
              if origin != ours_at.get(name, 0.0)]
    for parts, theirs in zip(_layouts(lay), _layouts(source)):
        for i, (part, other) in enumerate(zip(parts, theirs)):
            run(model, part, "update/merge_model.sql", source=other["t"], sign=sign,
                origin_shifts=shifts, class_totals=i == 0)


def after_forget(model: ModelContext, lay: dict[str, Any], class_type: str,
                 keep: list[Any] | None) -> None:
    """After subtracting a batch: refuse it if anything went below zero (it asked to
    forget what the model never learned); else drop the classes (in a group: the group's
    classes) it left without rows, unless declared in ``keep``, and what they had."""
    negative: list[tuple] = []
    for parts in _layouts(lay):
        for part in parts:
            amount = model.dialect.ident(part["sub"].amount_column)
            negative += fetch(model, part, "update/forget_checks.sql", amount=amount)
    if negative:
        cells = "; ".join(
            f"class {cls}" + (f", feature {feature!r}" if feature is not None else "")
            + f" would have {n} rows and weight {value:.6g}"
            for cls, feature, n, value in sorted(negative, key=str)[:5]
        )
        raise InvalidDataError(f"cannot forget more than model {model.name!r} learned: {cells}")
    for parts in _layouts(lay):
        for part in parts:
            grouped = bool(part["t"].get("groups"))
            run(model, part, "update/forget_cleanup.sql",
                keep=plain(keep) if keep and not grouped else None, class_type=class_type)
    if fetch(model, lay["pooled"][0], "fit/counts.sql#class_count")[0][0] == 0:
        raise InvalidDataError(
            f"forgetting this batch would leave model {model.name!r} without any rows; "
            "drop() the model instead"
        )


def drop_batches(model: ModelContext, lay: dict[str, Any]) -> None:
    for parts in _layouts(lay):
        for part in parts:
            run(model, part, "update/drop_batch.sql")


def finish(model: ModelContext, lay: dict[str, Any], features: list[dict[str, Any]],
           target: str, class_type: str, weight: str | None,
           known_classes: int | None = None) -> None:
    """The per-group parameter views and their checks, then the pooled model's
    parameters, checks, metadata row and scoring macros (``features`` in the model's
    order)."""
    groups = lay["groups"]
    if lay["grouped"]:
        group_parameters(model, lay)
    kind = {"groups": [[g["name"], g["type"]] for g in groups]}
    if model.family.composite:
        mixed.finish_mixed(model, lay["pooled"], features, target, class_type, weight,
                           kind=kind, known_classes=known_classes)
    else:
        pipeline_of(model).finish(features, target, class_type, weight, kind=kind,
                                  known_classes=known_classes)


def group_parameters(model: ModelContext, lay: dict[str, Any]) -> None:
    """The per-group parameter views over the per-group statistics, checked: every group
    has the classes the priors name, some labelled row has a group, no part's check fails."""
    grouped, groups = lay["grouped"], lay["groups"]
    context = grouping.group_context(model, grouped[0]["t"])
    fewest, most = fetch(model, grouped[0], "catalog/read_group_classes.sql#sizes", **context)[0]
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
    run(model, grouped[0], "score/params.sql", priors=priors, fit_prior=model.family.fit_prior(),
        **context)
    for part in grouped[1:]:
        run(model, part, "score/part_params.sql", **grouping.group_context(model, part["t"]))
    problems: list[tuple] = []
    for part in grouped:
        problems += fetch(model, part, "fit/checks.sql", features=part["features"],
                          **grouping.group_context(model, part["t"]))
    if problems:
        raise InvalidDataError(describe_problems(problems))


def plain(values: Any) -> list[Any]:
    """Labels as plain Python values (NumPy scalars unwrapped)."""
    return [v.item() if hasattr(v, "item") else v for v in values]


# ---------------------------------------------------------------------- fitting
def start_fit(model: ModelContext) -> None:
    """Before a fit: a model with a family per column takes its columns' families from the
    new source, not from an earlier fit."""
    if model.family.composite:
        cast(Any, model.family).assigned = {}


def input_spec(model: ModelContext, src: Source, target: str, features: list[str] | None,
               weight: str | None, group_by: str | list[str] | None = None
               ) -> dict[str, Any]:
    """Check a fit's arguments against the source and describe its input: target,
    weight, each feature's column, alias, type and per-feature options, the groups."""
    columns = src.columns
    if not isinstance(target, str) or target not in columns:
        raise UnknownColumnError(
            f"target column {target!r} is not in the source (columns: {', '.join(columns)})"
        )
    if weight is not None and not isinstance(weight, str):
        raise InvalidParameterError(f"weight must name a column, got {weight!r}")
    if weight is not None:
        if weight not in columns:
            raise UnknownColumnError(f"weight column {weight!r} is not in the source")
        check_weight_type(weight, columns[weight], model.dialect)
    check_label_type(target, columns[target], model.dialect)
    if features is not None:
        features = check_names("features", features, allow_none=False)
    if features is None:
        grouped = [group_by] if isinstance(group_by, str) else list(group_by or [])
        features = [c for c in columns if c not in (target, weight) and c not in grouped]
    else:
        missing = [f for f in features if f not in columns]
        if missing:
            raise UnknownColumnError(f"feature column(s) not in the source: {missing}")
        if len(set(features)) != len(features):
            raise InvalidParameterError("features contains a column twice")
        if target in features or (weight is not None and weight in features):
            raise InvalidParameterError("the target and weight cannot also be features")
    if not features:
        raise InvalidDataError("there are no feature columns to fit")
    if weight is not None:
        check_weights(model.engine, src.sql, model.dialect.ident(target), weight,
                      model.dialect.ident(weight))
    for name in features:
        model.family.check_feature_type(name, columns[name], model.dialect)
    unknown = [n for n in model.family.params.get("value_columns") or () if n not in features]
    if unknown:
        raise UnknownColumnError(f"value_columns names column(s) that are not features: "
                                 f"{unknown}")
    options = model.family.feature_options(len(features))
    specs = []
    for i, (name, extra) in enumerate(zip(features, options)):
        spec = {"name": name, "column": model.dialect.ident(name), "alias": f"c{i}",
                "type": columns[name], "shift": 0.0, **extra}
        if model.family.per_category:
            spec["coding"] = model.family.coding(name, columns[name], model.dialect)
        specs.append(spec)
    spec = {
        "target": target,
        "target_sql": model.dialect.ident(target),
        "target_type": columns[target],
        "weight": weight,
        "weight_sql": None if weight is None else model.dialect.ident(weight),
        "features": specs,
    }
    if group_by is not None:
        spec["groups"] = grouping.group_specs(columns, group_by, target, specs, weight,
                                              model.dialect)
    return spec


def fit_within(model: ModelContext, src: Source, spec: dict[str, Any], *,
               stored: dict[str, Any] | None = None, read: bool = False) -> None:
    """Fit on ``src`` as ``spec`` (from :meth:`input_spec`) describes, inside the
    caller's transaction (e.g. a search's scratch model, always rolled back). ``stored``,
    ``read``: the metadata row the caller read in this transaction (see
    :func:`sqlnb.ownership.owned`)."""
    if spec.get("groups") or model.family.composite:  # a model of parts (sqlnb.parts)
        write(model, src, spec)
        return
    ownership.claim(model, ownership.written(model, "base"), meta=stored, read=read)
    grouping.drop_groups(model)
    features = spec["features"]
    # an earlier mixed model's per-family relations (the model's own tables and parameter
    # views are replaced by create, which keeps a staged write's until its switch)
    ownership.release(model, ownership.names(model.name, "parts"))
    flow = pipeline_of(model)
    # a refit of the same shape refills the model's tables and keeps its views (no DDL)
    shape = flow.fit_shape(spec["target_type"], features)
    refill = flow.same_shape(stored, shape)
    flow.create(spec["target_type"], features=features, refill=refill)
    flow.scan(src, spec)
    flow.apply(features, weighted=spec["weight"] is not None, fresh=True, refill=refill)
    # (the metadata table was just created, or refilled, with today's columns)
    flow.finish(features, spec["target"], spec["target_type"], spec["weight"], fresh=True,
                meta_columns=True, refill=refill,
                kind={"shape": shape} if model.engine.capabilities.transactions else None)


# ---------------------------------------------------------------------- parts of columns
def column_parts(family: Family, columns: dict[str, str], features: list[str],
                 dialect: Dialect) -> list[tuple[str, list[str]]]:
    """The parts a model of ``family`` makes of the feature ``columns`` (name → type), as
    (the part's family name, its features) in the parts' order: one part of the model's
    own family, or with a family per column (``family="auto"``) one per family present."""
    if not family.composite:
        return [(family.name, list(features))]
    family_of = cast(Any, family).assign({name: columns[name] for name in features}, dialect)
    return [(name, [f for f in features if family_of[f] == name]) for name in PART_FAMILIES
            if name in family_of.values()]


def part_family(family: Family, part: str) -> Family:
    """The family of the part ``part`` (a family name) of a model of ``family``: its share of
    the hyperparameters, or the model's own family for a model of one part."""
    return cast(Any, family).part_family(part) if family.composite else family


# ---------------------------------------------------------------------- reading a model
def stored_parts(model: ModelContext) -> list[dict[str, Any]]:
    """The pooled parts of a fitted model over columns, as the reports read them: per part
    its family's name (``family``), family (``sub``), features (as the metadata lists
    them) and relations (``t``; the model's own part's are the model's)."""
    if model.family.composite:
        return mixed.parts(model)
    return [{"family": model.family.name, "sub": model.family,
             "features": model.meta["features"], "t": pipeline_of(model).tables}]


def score_sql(model: ModelContext, source_sql: str, output: str, keep: list[str],
              prediction: str = "prediction", columns: dict[str, str] | None = None) -> str:
    """The scoring statement of a model over columns for a FROM-clause fragment: its parts
    summed (a model of several families, whose wide parts are scored as their families
    alone: :func:`sqlnb.mixed.score_sql`) or its one family's (:func:`sqlnb.compiler.score_sql`)."""
    if model.family.composite:
        return mixed.score_sql(model, source_sql, output, keep, prediction=prediction,
                               columns=columns)
    return compiler.score_sql(model, source_sql, output, keep, prediction=prediction,
                              columns=columns)


def read_parameters(model: ModelContext) -> dict[str, Any]:
    """The per-class scoring parameters, read now (see :mod:`sqlnb.compiler`)."""
    stored = model.stored_input()
    if stored:  # a term model: how it reads its input goes with its parameters
        return text.compile_classes(model, stored)
    if model.family.composite:
        return mixed.compile_mixed(model)
    return compiler.read_parameters(model)


def read_scoring(model: ModelContext) -> dict[str, Any]:
    """Everything scoring needs: the parameters and, for a per-group model, its groups'
    (read inside the snapshot :meth:`ModelContext.parameters` opens)."""
    compiled = read_parameters(model)
    groups = [] if model.stored_input() else grouping.read_groups(model)
    if groups:
        compiled["groups"] = groups
        compiled["group_models"] = grouping.group_models(model, groups)
    return compiled


def derive_kind(model: ModelContext) -> dict[str, Any]:
    """The ``spec`` of a schema-1 model, from the tables it has."""
    groups = grouping.probe_groups(model)
    return {"input": text.stored_kind(model) or "columns",
            "groups": [[g["name"], g["type"]] for g in groups]}


# How a context reads what lives above its layer (see sqlnb/context.py).
READERS = Readers(parameters=read_scoring, stored_input=text.stored_input,
                  derive_kind=derive_kind)
