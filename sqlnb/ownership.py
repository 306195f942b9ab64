"""Which relations a model owns: only those are ever dropped or replaced.

A model named ``m`` writes relations named ``m_...`` (tables, views, macros). Another
model (``m_group`` has tables named like ``m``'s per-group tables) or the user may own a
relation of such a name, so sqlnb never infers ownership from a name:

- each fit records the relations the model owns in its meta row (``relations``, a JSON
  list); a model written before that record existed (schema version 1) owns what its kind
  implies (the relations of its family, its groups if it has a group-columns table, its
  text tables if it has an analyzer table);
- a write first *claims* the names it will create: a name taken by a relation the model
  does not own is a :class:`NameConflictError`, and nothing is changed;
- every drop goes through :func:`release`, which drops only owned relations.

Names are compared case-insensitively, as DuckDB resolves identifiers.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .context import META_COLUMNS, USER_ROLES
from .errors import NameConflictError
from .families import FAMILIES, PART_FAMILIES

if TYPE_CHECKING:  # pragma: no cover
    from .context import ModelContext

BASE_ROLES = USER_ROLES  # sqlnb/context.py names every relation of a role
TEXT_ROLES = ("analyzer", "vocabulary")
GROUP_ROLES = ("group_columns", "group_class_stats", "group_feature_stats",
               "group_class_params", "group_feature_params")
MACRO_SUFFIXES = ("joint_log_likelihood", "predict", "predict_proba", "predict_log_proba",
                  "score", "explain")
# the views the scoring and explain macros read their parameters from (created and dropped
# with them)
MACRO_TABLES = ("scoring_params", "explain_params")


def names(model_name: str, *kinds: str) -> list[str]:
    """The names of a model's relations of the given kinds (``base``, ``text``,
    ``groups``, ``macros``, ``parts``, ``group_parts``)."""
    roles = {
        "base": BASE_ROLES,
        "text": TEXT_ROLES,
        "groups": GROUP_ROLES,
        "macros": MACRO_SUFFIXES + MACRO_TABLES,
        "parts": [f"{family}_{suffix}" for family in PART_FAMILIES
                  for suffix in ("stats", "params")],
        # the parts of a per-group family="auto" model, keyed by the group columns
        "group_parts": [f"group_{family}_{suffix}" for family in PART_FAMILIES
                        for suffix in ("stats", "params")],
    }
    return [f"{model_name}_{role}" for kind in kinds for role in roles[kind]]


def every_name(model_name: str) -> list[str]:
    """Every relation name any kind of model called ``model_name`` can have."""
    return names(model_name, "base", "text", "groups", "macros", "parts", "group_parts")


def existing(model: ModelContext, candidates: list[str]) -> dict[str, str]:
    """Of ``candidates``, the relations that exist in the current schema: lowercased name
    -> kind (``TABLE``, ``VIEW``, ``MACRO`` or ``MACRO TABLE``). Never fails, so it is
    safe inside a transaction."""
    names = [n.lower() for n in candidates]
    # duckdb_functions() lists every built-in function (~0.1 s): asked only about names a
    # macro can have
    macros = [n for n in names if n.endswith(MACRO_SUFFIXES)]
    look = model.state.catalog_look
    if (look is not None and not macros and set(names) <= look[1]
            and look[0] == model.engine.catalog_generation()):
        # the write's metadata read asked, in this transaction, with no DDL run since
        return {name: kind for name, kind in look[2].items() if name in names}
    return model.engine.relations(names, macros)


def _columns(model: ModelContext, table: str) -> set[str]:
    """The column names of ``table`` (of the current schema)."""
    return model.engine.column_names(table.lower())


def owned(model: ModelContext, meta: dict[str, Any] | None = None, *,
          read: bool = False) -> set[str]:
    """The lowercased names of the relations the model owns (see the module docstring).
    ``meta``: the metadata row the caller has just read with ``model.meta`` (in the same
    transaction), whose record then answers without another look at the catalog; ``read``:
    that read was made, and a ``meta`` of None found no relation of the metadata's name
    (the model owns nothing)."""
    state = model.state
    if state.owned_relations is not None:  # inside a write that claimed names
        return state.owned_relations
    if (meta is not None and meta.get("relations") is not None
            and state.meta_kind in ("TABLE", "VERSIONED")):
        return {name.lower() for name in json.loads(meta["relations"])}
    if read and meta is None and state.meta_kind is None and model.catalog is None:
        return set()
    # The meta relation is looked up alone first: without it the model owns nothing, and a
    # new model's write skips the wide lookup below (duckdb_functions() costs ~20 ms).
    meta_name = f"{model.name}_meta"
    kind = existing(model, [meta_name]).get(meta_name.lower())
    if kind is None:
        return set()
    columns = _columns(model, meta_name)
    if not META_COLUMNS <= columns:
        return set()  # a relation of that name, but not a model's metadata
    if kind in ("TABLE", "VERSIONED") and "relations" in columns:
        rows = model.engine.fetch(model.engine.render("catalog/read_meta.sql#relations", t=model.tables,
                                                      model=model.name))
        if rows and rows[0][0] is not None:
            return {name.lower() for name in json.loads(rows[0][0])}
    # A model written before ownership was recorded: what its kind implies.
    present = existing(model, [f"{model.name}_analyzer", f"{model.name}_group_columns"])
    kinds = ["base", "macros"]
    family = model.engine.fetch(model.engine.render("catalog/read_meta.sql#family", t=model.tables,
                                                    model=model.name))
    if family and getattr(FAMILIES.get(family[0][0]), "composite", False):
        kinds.append("parts")
    if f"{model.name}_analyzer".lower() in present:
        kinds.append("text")
    if f"{model.name}_group_columns".lower() in present:
        kinds.append("groups")
    return {name.lower() for name in names(model.name, *kinds)}


def claim(model: ModelContext, needed: list[str], *, meta: dict[str, Any] | None = None,
          read: bool = False) -> None:
    """Before a write: the names it creates must be free or the model's own.

    Raises ``NameConflictError`` (nothing is changed) for a name taken by a relation the
    model does not own. Until the write ends, the claimed names count as owned. ``meta``:
    as in :func:`owned`.
    """
    model.state.owned_relations = None
    mine = owned(model, meta)
    # the model may replace what it owns: only the other names are looked up
    others = [name for name in needed if name.lower() not in mine]
    present = existing(model, others) if others else {}
    taken = [name for name in others if name.lower() in present]
    if taken:
        raise NameConflictError(
            f"model {model.name!r} needs the name(s) {taken}, which belong to another "
            "relation (a table, view or macro of yours, or another model's): drop or rename "
            "it, or give the model another name"
        )
    model.state.owned_relations = mine | {name.lower() for name in needed}
    model.state.claimed_relations = list(needed)


def written(model: ModelContext, *kinds: str) -> list[str]:
    """:func:`names` of ``kinds`` and, if the model's writes make scoring macros (or the
    engine's stored functions, which a write without them leaves), of ``macros``: a DuckDB
    model written with ``sql_macros=False`` neither claims nor records the macro names (so
    its writes need no look for macros: ``duckdb_functions()`` lists every built-in)."""
    macros = model.sql_macros or model.dialect.stored_scoring != "macros"
    return names(model.name, *kinds, *(("macros",) if macros else ()))


def record_claims(model: ModelContext, meta: dict[str, Any]) -> None:
    """After a call that claimed names and made those relations without rewriting the
    metadata row (``meta``, read before it): the names its record lacks are added to it,
    so the model owns them (a schema-1 row has no record: its kind implies them)."""
    if meta.get("relations") is None:
        return
    recorded = list(json.loads(meta["relations"]))
    known = {name.lower() for name in recorded}
    missing = [name for name in model.state.claimed_relations or []
               if name.lower() not in known]
    if missing:
        model.run("catalog/record_relations.sql", relations_json=json.dumps(recorded + missing))


def forgo(model: ModelContext, dropped: list[str]) -> None:
    """During a write: names it claimed but has since dropped are not recorded as owned."""
    gone = {name.lower() for name in dropped}
    model.state.claimed_relations = [name for name in model.state.claimed_relations or []
                                     if name.lower() not in gone]


def relations_json(model: ModelContext) -> str:
    """What the meta row records: the names the current write claimed."""
    return json.dumps(list(model.state.claimed_relations or []))


def release(model: ModelContext, candidates: list[str]) -> None:
    """Drop those of ``candidates`` that exist and that the model owns; nothing else."""
    mine = owned(model)
    candidates = [name for name in candidates if name.lower() in mine]
    present = existing(model, candidates) if candidates else {}
    drops = [{"kind": present[name.lower()], "name": name} for name in candidates
             if name.lower() in present]
    for name in [d["name"] for d in drops if d["kind"] == "VERSIONED"]:
        drops += [{"kind": "TABLE", "name": f"{name}__v{version}"}
                  for version in model.engine.versions(name)]
    if drops:
        model.run("catalog/drop_relations.sql", relations=[
            {**drop, "name": model.engine.table(drop["name"])} for drop in drops])


def drop_scratch(model: ModelContext) -> None:
    """Drop the scratch tables a model's updates leave on an engine without temporary
    tables (the batch table, which the next update overwrites: see ``Pipeline.scan``),
    with the model. Nothing elsewhere (temporary tables go with the connection)."""
    if not model.engine.capabilities.temp_tables:
        model.run("update/drop_batch.sql")


def done(model: ModelContext) -> None:
    """After a write (committed or not): ownership is read from the database again."""
    model.state.owned_relations = None
    model.state.claimed_relations = None
    model.state.catalog_look = None
