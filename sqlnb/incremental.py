"""Incremental, subtractive and mergeable fitting.

A model's statistics are sums (counts, weights) and pairwise-combinable moments (weight,
mean, m2), so they can be updated without the rows they came from:

* :func:`partial_fit` computes a batch's statistics with the same one-scan aggregate as
  ``fit`` and upserts them into the model tables (``INSERT ... ON CONFLICT DO UPDATE``);
  Gaussian moments are combined with the pairwise update of Chan, Golub and LeVeque.
* :func:`forget` runs the same upsert backwards (negated counts, weights and m2), which
  is exact algebra: ``fit(A + B)`` then ``forget(A)`` gives ``fit(B)``.
* :func:`sqlnb.merge` upserts the statistics tables of whole models (shards, days, machines,
  or models in attached database files) into one.

Each call is one transaction: if anything fails, the model is left exactly as it was.
Derived parameters are views over the statistics, so they are always current.

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE monday AS SELECT range % 2 AS y, range * 1.0 AS x FROM range(10)")
>>> _ = con.execute("CREATE TABLE tuesday AS SELECT range % 3 AS y, range * 2.0 AS x FROM range(9)")
>>> model = sqlnb.NaiveBayes("m", con=con).partial_fit("monday", "y")
>>> model.partial_fit("tuesday", "y").classes_
[0, 1, 2]
>>> model.forget("tuesday", "y").classes_
[0, 1]
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, TypeVar

from . import macros, ownership, parts
from .context import as_context
from .engines.dialects import Dialect
from .engines.source import Source
from .errors import (
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
    UnknownColumnError,
)
from .grouping import read_groups
from .pipeline import feature_origins, pipeline_of
from .spec import jsonable
from .validation import check_labels, check_weights

if TYPE_CHECKING:  # pragma: no cover
    from .context import ModelContext

M = TypeVar("M")  # a model object or a context: the update functions return what they get


# What an update keeps per model object between calls: its Gaussian shifts, read once
# from the learned means (see Pipeline.stored_shift: any shift near the data is exact
# enough, and the same shifts keep the batch scan's text, so its plan, the same), and the
# batch table's columns of each planned scan (Pipeline._planned_batch).
_UPDATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# ---------------------------------------------------------------------- public API
def partial_fit(
    model: M,
    source: Any,
    target: str,
    *,
    features: list[str] | None = None,
    weight: str | None = None,
    classes: list[Any] | None = None,
    group_by: str | list[str] | None = None,
) -> M:
    """Fold one batch into ``model`` (creating it on the first call), in one transaction.

    ``features=None`` takes the model's features (or, on the first call, every column but
    the target, the weight and the group columns). Without ``classes``, a label first seen
    in a later batch becomes a new class, so ``partial_fit(A); partial_fit(B)`` equals
    ``fit(A + B)``. With ``classes``, those classes exist from now on (with zero statistics
    until rows of them arrive) and a batch with a label outside them is rejected, as in
    scikit-learn. ``group_by`` is as in ``fit``: on the first call it makes a per-group
    model; later it may be left out (the model's group columns) or must name them; a group
    first seen in a later batch gets its model. ``model``: a model or its context (returned).
    """
    _update(as_context(model), source, target, features, weight, classes, sign=1,
            group_by=group_by)
    return model


def forget(
    model: M,
    source: Any,
    target: str,
    *,
    features: list[str] | None = None,
    weight: str | None = None,
    keep_classes: list[Any] | None = None,
    group_by: str | list[str] | None = None,
) -> M:
    """Subtract one batch's statistics from ``model`` (exact unlearning), in one transaction.

    A class left without rows disappears, unless it is in ``keep_classes``; so does, in a
    per-group model, a group's class (and a group without classes). Asking to
    forget what the model never learned (an unknown class or category, more rows or more
    weight than were fitted) raises :class:`~sqlnb.errors.InvalidDataError` and changes
    nothing. Forgetting every row is an error too: drop the model instead. ``model``: a
    model or its context (returned).
    """
    _update(as_context(model), source, target, features, weight, None, sign=-1,
            keep_classes=keep_classes, group_by=group_by)
    return model


def partial_fit_sparse(
    model: M,
    entries: Any,
    rows: Any,
    target: str,
    *,
    features: list[str],
    weight: str | None = None,
    row: str = "row",
    classes: list[Any] | None = None,
    sign: int = 1,
    keep_classes: list[Any] | None = None,
) -> M:
    """:func:`partial_fit` (``sign=1``) or :func:`forget` (``sign=-1``) for sparse input.

    ``entries`` and ``rows`` are as in :meth:`NaiveBayes.fit_sparse`; ``model``: a model
    or its context (returned).
    """
    _update_sparse(as_context(model), entries, rows, target, features=features, weight=weight,
                   row=row, classes=classes, sign=sign, keep_classes=keep_classes)
    return model


def _update_sparse(model: ModelContext, entries: Any, rows: Any, target: str, *,
                   features: list[str], weight: str | None, row: str,
                   classes: list[Any] | None, sign: int,
                   keep_classes: list[Any] | None) -> None:
    model.engine.refuse_open_transaction("partial_fit" if sign > 0 else "forget")
    check_labels("classes", classes)
    check_labels("keep_classes", keep_classes)
    if not model.family.sparse_input:
        raise InvalidParameterError(f"sparse input needs a count family, not {model.family.name}")
    engine = model.engine
    entries_src, rows_src = engine.source(entries), engine.source(rows)
    try:
        for column in (row, target) + ((weight,) if weight else ()):
            if column not in rows_src.columns:
                raise UnknownColumnError(f"column {column!r} is not in the rows table")
        if weight:
            check_weights(engine, rows_src.sql, model.dialect.ident(target), weight,
                          model.dialect.ident(weight))
        stored = stored_meta(model)
        if stored is None and sign < 0:
            raise NotFittedError(f"model {model.name!r} has not learned anything to forget")
        specs = [{"name": name, "column": model.dialect.ident(name), "alias": f"c{i}",
                  "type": "DOUBLE", "shift": 0.0, **extra}
                 for i, (name, extra) in
                 enumerate(zip(features, model.family.feature_options(len(features))))]
        target_type = rows_src.columns[target]
        if stored is not None:
            _check_continuation(model, stored)
            names = [f["name"] for f in stored["features"]]
            if list(features) != names:
                raise InvalidDataError(
                    f"model {model.name!r} has features {names}; the batch has {list(features)}"
                )
            _check_target_type(model, stored["target_type"], target_type)
            target_type = stored["target_type"]
        with engine.transaction("partial_fit" if sign > 0 else "forget"):
            _prepare(model, specs, stored, classes, target_type)
            pipeline_of(model).scan_sparse(entries_src, rows_src, row, target, weight)
            _check_declared(model, classes, target_type)
            pipeline_of(model).apply_sparse(sign=sign)
            if sign < 0:
                _after_forget(model, target_type, keep_classes)
            pipeline_of(model).finish(specs, target, target_type, weight, kind={"input": "sparse"})
    finally:
        engine.release(entries_src)
        engine.release(rows_src)
        ownership.done(model)
    model.invalidate()


def merge_statistics(result: ModelContext, sources: list[ModelContext], *,
                     accumulate: bool) -> None:
    """Upsert the statistics of ``sources`` into ``result``, in one transaction: every
    source is one more batch of the result's pipeline. With ``accumulate`` the result
    keeps its own statistics (and is skipped among the sources); otherwise it is
    (re)created from the first source's specification."""
    engine = result.engine
    spec = sources[0].meta
    # the features' entries (with their Gaussian origins) the result keeps
    features = result.meta["features"] if accumulate else spec["features"]
    if result.writes_in_parts(sources[0].spec.groups, stored=False):
        _merge_parts(result, sources, accumulate=accumulate)
        return
    flow = pipeline_of(result)
    try:
        with engine.transaction("merge"):
            ownership.claim(result, ownership.names(result.name, "base", "macros"))
            if accumulate:
                flow.stage(fresh=False)  # engines without transactions: a new version
            else:
                flow.create(spec["target_type"])
                flow.run("update/copy_features.sql", source=sources[0].tables)
            for source in sources:
                if not (accumulate and same_model(source, result)):
                    flow.apply_model(source.tables,
                                     origins=(source.meta["features"], features))
            kind = sources[0].spec
            flow.finish(features, spec["target"], spec["target_type"], None,
                        kind={"input": kind.input, "groups": [list(g) for g in kind.groups]})
    finally:
        ownership.done(result)
    result.invalidate()


def _merge_parts(result: ModelContext, sources: list[ModelContext], *, accumulate: bool) -> None:
    """:func:`merge_statistics` for models of several parts or with groups: every source's
    parts, pooled and per group, are one more batch of the result's."""
    spec = sources[0].meta
    features = [dict(f) for f in (result.meta if accumulate else spec)["features"]]
    family_of = {f["name"]: f.get("family", result.family.name) for f in features}
    groups = read_groups(sources[0])
    try:
        with result.engine.transaction("merge"):
            lay = parts.layout(result, features, family_of, groups)
            ownership.claim(result, ownership.names(result.name,
                                                    *parts.kinds(result, bool(groups))))
            if not accumulate:
                parts.create(result, lay, spec["target_type"])
                pipeline_of(result).run("update/copy_features.sql", source=sources[0].tables)
            for source in sources:
                if not (accumulate and same_model(source, result)):
                    parts.merge(result, lay, parts.stored_layout(source),
                                origins=(source.meta["features"], features))
            parts.finish(result, lay, features, spec["target"], spec["target_type"], None)
    finally:
        ownership.done(result)
    result.invalidate()


# ---------------------------------------------------------------------- one batch
def check_updatable(model: ModelContext) -> None:
    """Text and long-input models have updates of their own (``partial_fit(text=...)``,
    ``partial_fit_long``)."""
    if model.reads_terms:
        raise InvalidParameterError(
            "this is a text or long-input model: update it with partial_fit(..., text=...) "
            "or partial_fit_long, unlearn documents with forget(..., text=...)"
        )


def _update(model: ModelContext, source: Any, target: str, features: list[str] | None,
            weight: str | None, classes: list[Any] | None, sign: int,
            keep_classes: list[Any] | None = None,
            group_by: str | list[str] | None = None) -> ModelContext:
    check_labels("classes", classes)
    check_labels("keep_classes", keep_classes)
    engine = model.engine
    flow = None
    try:
        # Everything, reads included, in the one transaction (refused first if the caller
        # has one open): the metadata and the catalog are read once, in its snapshot.
        with engine.transaction("partial_fit" if sign > 0 else "forget"):
            stored = stored_meta(model)  # the one read of the metadata
            check_updatable(model)
            if stored is None and sign < 0:
                raise NotFittedError(f"model {model.name!r} has not learned anything to forget")
            in_parts = model.writes_in_parts(group_by is not None, stored=stored is not None)
            # a small Arrow batch goes in the engine's write slot: the scan's text (and
            # plan) is then the same at every call; a table name's is too
            slotted = engine.write_slot(source)
            src, slot_key = slotted if slotted is not None else (engine.source(source), None)
            flow = pipeline_of(model)
            # (models of parts scan their batches as a fit does: sqlnb.parts)
            planned = (engine.keeps_plans and (slotted is not None or _names_a_table(src))
                       and not in_parts)
            # (an engine without temporary tables keeps the batch table of a dense update
            # too: the next update overwrites it)
            flow.start_update(slot_key, keep_batch=planned or (
                not in_parts and not engine.capabilities.temp_tables))
            try:
                _update_within(model, src, target, features, weight, classes, sign,
                               keep_classes, stored, planned=planned, group_by=group_by)
            finally:
                flow.end_update()
                engine.release(src)
                engine.empty_write_slot()
    except BaseException:
        if flow is not None:
            flow.update_failed()  # rolled back (also at COMMIT)
        raise
    finally:
        ownership.done(model)
    model.invalidate()
    return model


def _update_within(model: ModelContext, src: Source, target: str, features: list[str] | None,
                   weight: str | None, classes: list[Any] | None, sign: int,
                   keep_classes: list[Any] | None, stored: dict[str, Any] | None,
                   planned: bool = False, group_by: str | list[str] | None = None) -> None:
    """One partial_fit or forget inside its transaction, ``stored`` the metadata before;
    ``planned``: the source's text is the same at every call (its scan is planned once)."""
    spec = _batch_spec(model, src, target, features, weight, stored, group_by)
    if stored is not None:  # the batch's class means go relative to the model's origins
        origins = feature_origins(stored["features"])
        for f in spec["features"]:
            f["origin"] = origins[f["name"]]
    if model.writes_in_parts(spec.get("groups"), stored=False):  # the parts' flow
        parts.write(model, src, spec, sign=sign, stored=stored, classes=classes,
                    keep_classes=keep_classes)
        return
    spec["planned"] = planned
    spec["update_cache"] = _UPDATES.setdefault(model, {})
    spec["stored_shift"] = stored is not None  # the Gaussian shift from the statistics
    class_type = stored["target_type"] if stored else spec["target_type"]
    batch = spec["features"]
    # whether the scoring macros read the parameter view (as the metadata read found):
    # then, if the classes stay the same, they are current as they are
    current = stored is not None and macros.read_current_view(model)
    refreshed = _prepare(model, batch, stored, classes, class_type)
    flow = pipeline_of(model)
    flow.scan(src, spec)
    flow.check_batch(batch)
    _check_declared(model, classes, class_type)
    flow.apply(batch, weighted=weight is not None, sign=sign, checked=True)
    if sign < 0:
        _after_forget(model, class_type, keep_classes)
    # the parameter views read the statistics: they stay current unless the
    # hyperparameters or the classes changed
    flow.finish(batch, spec["target"], class_type, weight,
                known_classes=None if stored is None or refreshed
                else len(stored["classes"]),
                macros_current=current,
                # the metadata table as the update read it: the columns of today's layout
                meta_columns=stored is not None and "relations" in stored)


def _names_a_table(src: Source) -> bool:
    """Whether ``src`` is a table or view name (not files, not a registered object, whose
    helper name is new at every call)."""
    return src.registered is None and not src.paths and bool(src.sql)


def _prepare(model: ModelContext, features: list[dict[str, Any]], stored: dict | None,
             classes: list[Any] | None, class_type: str) -> bool:
    """Create the model's tables on the first call, else refresh its hyperparameters if
    they changed; returns whether the model's parameters need new definitions."""
    ownership.claim(model, ownership.written(model, "base"), meta=stored, read=True)
    refreshed = stored is None or stored["params"] != jsonable(model.family.params)
    if stored is not None:
        pipeline_of(model).stage(fresh=False)  # engines without transactions: a new version
    if stored is None:
        pipeline_of(model).create(class_type, features=features)
    elif refreshed:
        pipeline_of(model).run("update/update_features.sql", features=features)
    if classes is not None:
        pipeline_of(model).run("fit/declare_classes.sql", classes=_plain(classes), class_type=class_type,
                           features=features)
    return refreshed


def _one_part(model: ModelContext) -> dict[str, Any]:
    """A single-family model's one part, over the tables this write uses (its kept batch,
    its staged versions)."""
    return {"pooled": [{"sub": model.family, "t": pipeline_of(model).tables, "features": []}],
            "grouped": [], "groups": []}


def _check_declared(model: ModelContext, classes: list[Any] | None, class_type: str) -> None:
    if classes is not None:
        parts.check_declared(model, _one_part(model), classes, class_type)


def _after_forget(model: ModelContext, class_type: str, keep: list[Any] | None) -> None:
    parts.after_forget(model, _one_part(model), class_type, keep)


# ---------------------------------------------------------------------- specifications
def stored_meta(model: ModelContext) -> dict[str, Any] | None:
    """The model's metadata, or None when it has not been fitted."""
    model.invalidate()
    try:
        return model.meta
    except NotFittedError:
        return None


def _batch_spec(model: ModelContext, src: Source, target: str, features: list[str] | None,
                weight: str | None, stored: dict[str, Any] | None,
                group_by: str | list[str] | None = None) -> dict[str, Any]:
    if stored is not None:
        _check_continuation(model, stored)
        names = [f["name"] for f in stored["features"]]
        if features is None:
            features = names
        elif sorted(features) != sorted(names):
            raise InvalidDataError(
                f"model {model.name!r} has features {names}; the batch names {list(features)}"
            )
        features = names  # the model's order
        group_by = _stored_groups(model, group_by)
        model.family.resume(stored["features"])  # what the first fit decided per column
    spec = parts.input_spec(model, src, target, features, weight, group_by)
    if stored is not None:
        _check_target_type(model, stored["target_type"], spec["target_type"])
        for old, new in zip(model.spec.groups, spec.get("groups") or []):
            if _kind(old[1], model.dialect) != _kind(new["type"], model.dialect):
                raise InvalidDataError(
                    f"group column {old[0]!r} of model {model.name!r} has type {old[1]}; "
                    f"the batch's is {new['type']}"
                )
        model.family.check_batch_columns(model.name, stored["features"], spec["features"],
                                         model.dialect)
    return spec


def _stored_groups(model: ModelContext, group_by: str | list[str] | None) -> list[str] | None:
    """An update's group columns: the model's (``group_by`` may leave them out, or must
    name the same)."""
    names = [name for name, _ in model.spec.groups]
    given = [group_by] if isinstance(group_by, str) else group_by
    if given is not None and list(given) != names:
        raise InvalidParameterError(
            f"model {model.name!r} was fitted with group_by={names or None}; a batch cannot "
            f"change it to {group_by!r} (leave group_by out to use the model's)"
        )
    return names or None


def _check_continuation(model: ModelContext, stored: dict[str, Any]) -> None:
    """The object's family and statistics-shaping hyperparameters must match the model's."""
    if stored["family"] != model.family.name:
        raise InvalidParameterError(
            f"model {model.name!r} is a {stored['family']} model, not {model.family.name}; "
            "use sqlnb.load() to continue it"
        )
    for key in model.family.statistics_params:
        if stored["params"].get(key) != model.family.params.get(key):
            raise InvalidParameterError(
                f"model {model.name!r} was fitted with {key}={stored['params'].get(key)!r}; "
                f"it cannot continue with {key}={model.family.params.get(key)!r}"
            )


def _kind(sql_type: str, dialect: Dialect) -> str:
    """Target types that hold the same labels: integers, numbers, else the very type."""
    kind = dialect.kind(sql_type)
    if kind in ("integer", "float", "decimal"):
        return "integer" if kind == "integer" else "float"
    return sql_type.upper()


def _check_target_type(model: ModelContext, stored: str, batch: str) -> None:
    if _kind(stored, model.dialect) != _kind(batch, model.dialect):
        raise InvalidDataError(
            f"the target of model {model.name!r} has type {stored}; the batch's target is {batch}"
        )


def _plain(values: Any) -> list[Any]:
    return [v.item() if hasattr(v, "item") else v for v in values]


# ---------------------------------------------------------------------- model merge
def same_model(a: ModelContext, b: ModelContext) -> bool:
    """Whether two model objects name the same tables (DuckDB names ignore case)."""
    return a.engine.connection is b.engine.connection and a.tables["class_stats"].lower() == b.tables["class_stats"].lower()


def check_same_spec(a: ModelContext, b: ModelContext) -> None:
    """Models merge only with the same family, hyperparameters, features and label kind."""
    ma, mb = a.meta, b.meta
    problems = []
    if ma["family"] != mb["family"]:
        problems.append(f"family {ma['family']} vs {mb['family']}")
    elif ma["params"] != mb["params"]:
        problems.append(f"hyperparameters {ma['params']} vs {mb['params']}")
    fa = pipeline_of(a).fetch("catalog/read_meta.sql#features", source=a.tables)
    fb = pipeline_of(b).fetch("catalog/read_meta.sql#features", source=b.tables)
    if [(r[0], r[2], r[3], r[4]) for r in fa] != [(r[0], r[2], r[3], r[4]) for r in fb]:
        problems.append(f"features {[r[0] for r in fa]} vs {[r[0] for r in fb]}")
    if _kind(ma["target_type"], a.dialect) != _kind(mb["target_type"], a.dialect):
        problems.append(f"target type {ma['target_type']} vs {mb['target_type']}")
    if a.families_ != b.families_:
        problems.append(f"the columns' families {a.families_} vs {b.families_}")
    groups_a = [(name, _kind(t, a.dialect)) for name, t in a.spec.groups]
    groups_b = [(name, _kind(t, a.dialect)) for name, t in b.spec.groups]
    if groups_a != groups_b:
        problems.append(f"group columns {[g[0] for g in groups_a]} vs {[g[0] for g in groups_b]}")
    if problems:
        raise InvalidParameterError(
            f"models {a.name!r} and {b.name!r} have different specifications: "
            + "; ".join(problems)
        )
