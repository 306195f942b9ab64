"""The scoring compiler: the one place where a fitted model's parameters become the SQL
that scores rows.

``read_parameters`` reads the (small) parameter views once into per-class scoring terms
(each family's ``fill_term``, through ``Family.read_terms``); from those compiled classes
``score_sql`` renders ``predict*``'s statement (``score/score.sql``, or for per-group models the
routed standalone statement), ``to_sql`` the standalone statement (``score/standalone_score.sql``,
in any dialect) and ``macros_sql`` the persisted scoring macros (``score/scoring_macros.sql``;
:mod:`sqlnb.macros` creates and drops them). :mod:`sqlnb.scoring` picks between this
``compiled`` statement and the ``arrays`` one. Text and mixed models compile their classes
in :mod:`sqlnb.text` and :mod:`sqlnb.mixed` (``sqlnb.parts.read_parameters`` dispatches).

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i * 1.0 AS x FROM range(6) r(i)")
>>> model = sqlnb.NaiveBayes("demo", con=con).fit("t", "y")
>>> [c["label_value"] for c in read_parameters(model.context)["compiled"]]
[0, 1]
>>> to_sql(model.context, "t").startswith("--")
True
"""

from __future__ import annotations

import json
import math
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import scoring
from .context import as_context, relation_name
from .engines.dialects import Dialect, Expression, dialect_named
from .errors import InvalidParameterError, UnsupportedError
from .families import FAMILIES
from .grouping import GROUP_ALIAS, group_parameter_table
from .missing import plain_classes
from .scoring import OUTPUTS, comment_text, with_chunks
from .templates import render
from .version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from .context import ModelContext

ROW = "r"  # the macros' row parameter
ROW_ONCE = "__sqlnb_row"  # the row's name inside a macro that uses its parameter once
# DuckDB copies a macro's argument (the whole row) at every use: past this many feature
# references the macros name the row once (a lambda), slower per row but not per feature.
DIRECT_REFERENCES = 400
MACRO_ROLES = ("joint", "predict", "predict_proba", "predict_log_proba", "score", "explain")
# to_sql's outputs: the scoring outputs, and the label with the probabilities beside it
STANDALONE_OUTPUTS = {"predict": None, "predict_proba": OUTPUTS["proba"],
                      **{k: v for k, v in OUTPUTS.items() if k != "predict"}}


def macro_names(name: str) -> dict[str, str]:
    """The unquoted names of a model's macros, by role.

    ``joint`` is ``<name>_joint_log_likelihood``; the others are ``<name>_<role>``.
    """
    suffixes = {"joint": "joint_log_likelihood"}
    return {role: f"{name}_{suffixes.get(role, role)}" for role in MACRO_ROLES}


def params_table_name(name: str) -> str:
    """The unquoted name of the table the array-form macros read: ``<name>_scoring_params``."""
    return relation_name(name, "scoring_params")


# A categorical feature with more categories than this is scored by a join with a relation
# of its coefficients, one row per category (where the dialect can: DuckDB), not by an
# expression naming them: DuckDB plans an ENUM of 50,000 keys in ~1 s, in every statement,
# and the join of 50,000 rows with 50,000 categories takes ~0.1 s (docs/scoring.md).
INLINE_MAX_CATEGORIES = 2000


def _shared_categories(classes: list[dict[str, Any]]) -> set[str]:
    """The categorical features whose categories every class lists in the same order (the
    same tuple): the only ones a position or a joined relation may serve for all classes."""
    seen: dict[str, Any] = {}
    unshared: set[str] = set()
    for c in classes:
        terms = list(c["terms"])
        for part in c.get("parts") or []:
            terms += part["c"]["terms"]
        for term in terms:
            keys = term.get("sorted_categories")
            if keys is None:
                continue
            if seen.setdefault(term["name"], keys) is not keys:
                unshared.add(term["name"])
    return set(seen) - unshared


def joined_lookups(classes: list[dict[str, Any]], dialect: Dialect,
                   limit: int | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``classes`` (compiled, in class order) whose categorical terms of more than
    ``limit`` (default ``INLINE_MAX_CATEGORIES``) categories read their coefficient from a
    joined relation (``term["lookup"]``: the columns ``key`` and ``value`` of the class),
    and those relations (``lookups``: the column that joins, the categories as one JSON
    text, one coefficient list per class) for ``score/scoring_helpers.sql``'s ``lookup_joins``.
    Nothing changes where the dialect has no such join or no feature is that wide."""
    limit = INLINE_MAX_CATEGORIES if limit is None else limit
    if not dialect.joins_lookups:
        return classes, []
    lookups: dict[str, dict[str, Any]] = {}
    shared = _shared_categories(classes)

    def joined(terms: list[dict[str, Any]], j: int) -> list[dict[str, Any]]:
        out = []
        for term in terms:
            keys = term.get("sorted_categories")
            elided = term.get("elided", False)
            if not elided and (keys is None or len(keys) <= limit or term["name"] not in shared):
                out.append(term)
                continue
            found = lookups.get(term["name"])
            if found is None:
                name = f"__sqlnb_lookup_{len(lookups)}"
                found = lookups[term["name"]] = {
                    "name": name, "column": term["column"], "key": dialect.ident(name + "_key"),
                    "values": [dialect.ident(f"{name}_c{i}") for i in range(len(classes))],
                    # categories left in the database: joined from the parameter view
                    "view": {**term["kept"], "classes": [c["index"] for c in classes]}
                    if elided else None,
                    "keys": None if elided else json.dumps(list(keys), ensure_ascii=False),
                    "coefs": [None] * len(classes)}
            found["coefs"][j] = None if elided else term["sorted_coefs"]
            out.append({**term, "lookup": {"key": found["key"], "value": found["values"][j]}})
        return out

    result = []
    for j, c in enumerate(classes):
        c = {**c, "terms": joined(c["terms"], j)}
        if c.get("parts"):
            c["parts"] = [{**part, "c": {**part["c"], "terms": joined(part["c"]["terms"], j)}}
                          for part in c["parts"]]
            c["chunks"] = [c]
        else:
            c = with_chunks(c)
        result.append(c)
    return result, list(lookups.values())


def with_categories(model: ModelContext, classes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``classes`` whose terms of features left in the database (``elided``, see
    :func:`terms_read`) carry their categories, read from where they are kept: for the
    statements that inline every parameter (``to_sql``, another dialect's)."""
    wanted: dict[tuple[str, str], dict[str, Any]] = {}
    for c in classes:
        for term in [*c["terms"], *(t for part in c.get("parts") or [] for t in part["c"]["terms"])]:
            if term.get("elided"):
                wanted[(term["kept"]["feature_params"], term["name"])] = term
    if not wanted:
        return classes
    filled: dict[tuple[str, str], dict[int, tuple[tuple[Any, ...], list[float]]]] = {}
    for key, term in wanted.items():
        by_class: dict[int, list[tuple[Any, float]]] = {}
        for index, category, coef in model.fetch(
                "catalog/read_params.sql#categories", t=term["kept"], feature=term["name"],
                family_template=term["kept"]["template"]):
            by_class.setdefault(index, []).append((category, float(coef)))
        shared = tuple(category for category, _ in next(iter(by_class.values())))
        filled[key] = {index: (shared if tuple(k for k, _ in pairs) == shared
                               else tuple(k for k, _ in pairs), [v for _, v in pairs])
                       for index, pairs in by_class.items()}

    def fill(terms: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
        out = []
        for term in terms:
            if term.get("elided"):
                keys, coefs = filled[(term["kept"]["feature_params"], term["name"])][index]
                term = {**term, "elided": False, "categories": list(zip(keys, coefs)),
                        "sorted_categories": keys, "sorted_coefs": coefs}
            out.append(term)
        return out

    result = []
    for c in classes:
        c = {**c, "terms": fill(c["terms"], c["index"])}
        if c.get("parts"):
            c["parts"] = [{**part, "c": {**part["c"], "terms": fill(part["c"]["terms"], c["index"])}}
                          for part in c["parts"]]
            c["chunks"] = [c]
        else:
            c = with_chunks(c)
        result.append(c)
    return result


# A model with this many inline categorical features or fewer reads each class's
# coefficient at the feature's position column; with more, the positions form one list
# gathered per class. The gather plans in far less time (a wide statement's fixed cost)
# but costs more per row: measured on DuckDB 2.0.1, 5 classes, CPU seconds of a predict,
# positions / gather: 10 features x 1M rows 0.75 / 0.88, x 20,000 rows 0.039 / 0.034;
# 30 features x 1M rows 2.44 / 2.66, x 20,000 rows 0.114 / 0.081; 100 features x 20,000
# rows 0.42 / 0.27 (a family="auto" model of 200 columns: 0.71 / 0.48).
GATHER_MIN_FEATURES = 16


def coded_positions(classes: list[dict[str, Any]], dialect: Dialect,
                    params: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``classes`` whose categorical terms written inline (not joined) are scored from the
    row's positions among each feature's categories, computed once per row and feature
    for every class (DuckDB binds and plans a feature's ENUM once, not once per class):

    * with more than ``GATHER_MIN_FEATURES`` such features, ``unseen`` not ``"error"``
      and ``missing="ignore"`` (``params``, or a mixed model's part's ``p``), the terms
      leave the sum: one list of the row's positions,
      each offset by the lengths of the features before it (``gather``), indexes one
      list per class of every feature's coefficients, then 0 for a missing value and the
      unseen coefficient (``c["gather"]``: per class, the list's values at those positions,
      summed, instead of a lookup per feature and class). The lists are the columns of
      one row joined to every row (``gather["coefs"]``), which measured faster than the
      same lists written as constants in each class's expression;
    * otherwise each term reads its feature's position column (``term["position"]``).

    Returns the classes and what ``score/score.sql`` projects under them (``positions``: one
    column per feature of the second kind; ``gather``: the list's column and features, and
    the coefficient lists' columns)."""
    coded: dict[str, Any] = {"positions": [], "gather": None}
    if not dialect.joins_lookups:
        return classes, coded
    positions: dict[str, dict[str, Any]] = {}
    gathered: dict[str, dict[str, Any]] = {}
    offset = [0]
    shared = _shared_categories(classes)

    gathers = len(shared) > GATHER_MIN_FEATURES

    def constant(p: dict[str, Any]) -> bool:
        return (gathers and p.get("unseen") != "error"
                and p.get("missing", "ignore") == "ignore")

    def split(terms: list[dict[str, Any]], p: dict[str, Any]) -> tuple[list, list]:
        kept, gather = [], []
        for term in terms:
            keys = term.get("sorted_categories")
            if not keys or term.get("lookup") or term["name"] not in shared:
                kept.append(term)
            elif constant(p):
                if term["name"] not in gathered:
                    gathered[term["name"]] = {"column": term["column"], "keys": keys,
                                              "offset": offset[0]}
                    offset[0] += len(keys) + 2
                unseen = 0.0 if p.get("unseen") == "ignore" else float(term["unseen"])
                gather.append(term["sorted_coefs"] + [0.0, unseen])
            else:
                found = positions.get(term["name"])
                if found is None:
                    found = positions[term["name"]] = {
                        "name": dialect.ident(f"__sqlnb_position_{len(positions)}"),
                        "column": term["column"], "keys": keys}
                kept.append({**term, "position": found["name"]})
        return kept, gather

    column = dialect.ident("__sqlnb_gather")
    coefficients: list[dict[str, Any]] = []  # one list per class, as columns of one row

    def gather_of(lists: list[list[float]]) -> dict[str, Any] | None:
        if not lists:
            return None
        name = dialect.ident(f"__sqlnb_gather_coefs_{len(coefficients)}")
        coefficients.append({"name": name,
                             "values": [v for values in lists for v in values]})
        return {"coefs": coefficients[-1]["name"], "index": column, "size": len(lists)}

    result = []
    for c in classes:
        if c.get("parts"):
            parts = []
            for part in c["parts"]:
                terms, lists = split(part["c"]["terms"], part["p"])
                parts.append({**part, "c": {**part["c"], "terms": terms,
                                            "gather": gather_of(lists)}})
            c = {**c, "parts": parts}
            c["chunks"] = [c]
        else:
            terms, lists = split(c["terms"], params)
            c = with_chunks({**c, "terms": terms, "gather": gather_of(lists)})
        result.append(c)
    coded["positions"] = list(positions.values())
    if gathered:
        coded["gather"] = {"name": column, "features": list(gathered.values()),
                           "coefs": coefficients}
    return result, coded


# Parameters read by a write for its scoring macros, inside its transaction, kept for the
# reads that follow it: once the write commits, they are what any read of that version
# (its fitted_at stamp, new at every write) would find, and a wide model's read costs
# seconds (50,000 categories x 3 classes: ~1 s, as much as the rest of fit and predict).
# A write that rolls back leaves a stamp no one reads again. Keyed by the engine (its
# connection), the model's name and catalog and the stamp; only the last few are kept.
_RECENT_READS: OrderedDict[tuple[Any, ...], tuple[Any, dict[str, Any]]] = OrderedDict()
RECENT_READS = 4
_RECENT_LOCK = threading.Lock()  # connections of several threads share the module


def remembered(model: ModelContext, read: Callable[[ModelContext], dict[str, Any]]
               ) -> dict[str, Any]:
    """``read(model)``, or the parameters a read of the same model version returned (see
    ``_RECENT_READS``): the same classes and terms, without the caches a model keeps
    beside them (statements, bound lists, checked inputs)."""
    key = (id(model.engine), model.name, model.catalog,
           str(model.meta["fitted_at"]))
    with _RECENT_LOCK:
        entry = _RECENT_READS.get(key)
        if entry is not None and entry[0]() is not model.engine:
            entry = None  # another engine, at the address of a collected one
        if entry is not None:
            _RECENT_READS.move_to_end(key)
    if entry is None:
        entry = (weakref.ref(model.engine), read(model))
        with _RECENT_LOCK:
            _RECENT_READS[key] = entry
            while len(_RECENT_READS) > RECENT_READS:
                _RECENT_READS.popitem(last=False)
    found = entry[1]
    fresh = {name: found[name] for name in ("classes", "compiled")}
    if "parts" in found:  # each part's own caches stay out
        fresh["parts"] = [{k: v for k, v in part.items() if k != "view"}
                          for part in found["parts"]]
    return fresh


def read_parameters(model: ModelContext) -> dict[str, Any]:
    """The model's classes and, per class, its constant and scoring terms (feature order),
    for a model of one family over columns."""
    return remembered(model, _read_parameters)


def terms_read(model: ModelContext, family: Any) -> tuple[str, dict[str, Any]]:
    """The read of a family's scoring terms, and its arguments: the categories of a feature
    of more than ``INLINE_MAX_CATEGORIES`` stay in the database where the engine can join
    them (not for per-group models, whose group tables read the pooled categories)."""
    if family.per_category and model.joins_category_lookups():
        return "catalog/read_params.sql#terms_elided", {"limit": INLINE_MAX_CATEGORIES}
    return "catalog/read_params.sql#terms", {}


def where_kept(tables: dict[str, Any], feature: str, family: Any) -> dict[str, Any]:
    """Where a term's parameters are kept (the views a feature whose categories were left in
    the database is joined from, or read back for a statement that inlines them)."""
    return {"kept": {"feature_params": tables["feature_params"],
                     "class_params": tables["class_params"], "feature": feature,
                     "template": family.template}}


def parameter_reads(model: ModelContext) -> list[tuple[str, dict[str, Any]]]:
    """The reads :func:`read_parameters` makes (template, context): one statement giving
    the classes, their constants and the scoring terms together."""
    template, extra = terms_read(model, model.family)
    limit = extra.get("limit") if template.endswith("#terms_elided") else None
    return [("catalog/read_params.sql#together", {"limit": limit})]


def _read_parameters(model: ModelContext) -> dict[str, Any]:
    meta = model.meta
    dialect = model.dialect
    types = {f["name"]: f["type"] for f in meta["features"]}
    # one statement: a parameter view read once, not once for the constants and once more
    # for the terms (the view's plan is most of the cost of a small model's read)
    ((names, rows),) = model.engine.fetch_together([
        model.render(template, **extra) for template, extra in parameter_reads(model)])
    # its columns: class_index, class, log_prior and constant, then those of the terms read
    lead = 4
    classes: list[tuple] = []
    constants: dict[int, float] = {}
    term_rows = []
    for row in rows:
        if row[0] not in constants:
            classes.append(tuple(row[:3]))
            constants[row[0]] = row[3]
        if row[lead] is not None:  # (a class without terms: its one row has none)
            term_rows.append(row[lead:])
    order = {f["name"]: i for i, f in enumerate(meta["features"])}
    # (read_terms takes the names of the terms read's columns from its fourth on)
    terms = model.family.read_terms(term_rows, names[lead + 3:], lambda feature: {
        "column": dialect.ident(feature), "family": model.family.name,
        "guard": dialect.kind(types.get(feature)) == "float",
        **where_kept(model.tables, feature, model.family)})
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


def score_sql(model: ModelContext, source_sql: str, output: str, keep: list[str],
              prediction: str = "prediction", columns: dict[str, str] | None = None) -> str:
    """The ``compiled`` scoring statement for a FROM-clause fragment (``predict*``):
    ``columns`` maps feature names to the SQL expressions that read them."""
    compiled = model.parameters()
    if compiled.get("groups"):  # per-group models: rows are routed to their group
        return scoring_sql(model, source_sql, output, prediction=prediction,
                                  output_prefix=OUTPUTS[output], columns=columns)
    return classes_score_sql(model, compiled["compiled"], source_sql, output, keep,
                             OUTPUTS[output], prediction=prediction, columns=columns)[0]


def classes_score_sql(model: ModelContext, compiled_classes: list[dict[str, Any]],
                      source_sql: str, output: str, keep: list[str],
                      output_prefix: str | None, prediction: str = "prediction",
                      columns: dict[str, str] | None = None,
                      keep_order: bool = False) -> tuple[str, bool]:
    """``score/score.sql`` over ``compiled_classes`` (the model's, or some of a mixed model's
    parts), and whether it numbered the rows (``__sqlnb_order``, for joined categorical
    lookups): with ``keep_order`` that column is kept and the rows are not sorted, for an
    enclosing statement that sorts them."""
    dialect = model.dialect
    classes = []
    joined, lookups = joined_lookups([with_columns(c, columns) for c in compiled_classes],
                                     dialect)
    joined, coded = coded_positions(joined, dialect, model.family.params)
    for c in joined:
        out = (None if output_prefix is None
               else dialect.ident(f"{output_prefix}{c['label_value']}"))
        classes.append({**c, "output": out})
    plain, guarded = plain_classes(classes)
    sql = model.render(
        "score/score.sql",
        source=source_sql,
        output=output,
        keep=[dialect.ident(k) for k in keep],
        classes=plain,
        robust=classes if guarded else None,
        prediction=dialect.ident(prediction),
        lookups=lookups,
        positions=coded["positions"],
        gather=coded["gather"],
        keep_order=keep_order,
    )
    return sql, bool(lookups)


def with_columns(c: dict[str, Any], columns: dict[str, str] | None) -> dict[str, Any]:
    """A compiled class whose terms read the features named in ``columns`` from those SQL
    expressions instead of the plain columns (e.g. a value converted to the model's type)."""
    if not columns:
        return c

    def swap(terms: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**term, "column": columns.get(term["name"], term["column"])} for term in terms]

    swapped = {**c, "terms": swap(c["terms"])}
    if c.get("parts"):
        swapped["parts"] = [{**part, "c": {**part["c"], "terms": swap(part["c"]["terms"])}}
                            for part in c["parts"]]
    return with_chunks(swapped)


def compiled_classes(model: ModelContext, row: str | None = None,
                     output_prefix: str | None = None,
                     columns: dict[str, str] | None = None,
                     dialect: Dialect | None = None) -> list[dict[str, Any]]:
    """The model's per-class scoring parameters, ready for a template.

    With ``row``, each term reads the field of that struct (a macro's row argument)
    rather than a column; ``key`` is the class label as text (the struct field name of
    ``<name>_predict_proba``), ``output`` the quoted output column name. With another
    ``dialect`` than the model's engine's, names and labels are spelt in that one (pass
    ``columns`` quoted in it too).
    """
    classes = []
    for c in model.parameters()["compiled"]:
        c = with_columns(c, columns)
        if dialect is not None and dialect is not model.dialect:
            c = {**c, "label": dialect.lit(c["label_value"], model.meta["target_type"]),
                 "jll": dialect.ident(f"__sqlnb_jll_{c['index']}")}
        terms = c["terms"]
        parts = c.get("parts")
        if row is not None:
            terms = [{**term, "column": model.dialect.field(row, term["name"])} for term in terms]
            if parts:  # a mixed model: each part's terms read the row's fields too
                parts = [{**part, "c": {**part["c"], "terms": [
                    {**term, "column": model.dialect.field(row, term["name"])}
                    for term in part["c"]["terms"]]}} for part in parts]
        key = str(c["label_value"])
        quote = (dialect or model.dialect).ident
        output = None if output_prefix is None else quote(f"{output_prefix}{key}")
        extra = {"parts": parts} if parts else {}
        classes.append(with_chunks({**c, **extra, "terms": terms, "key": key, "output": output,
                                    "comment": comment_text(key), "group_model": None,
                                    "matched": None}))
    return classes


def labelled_classes(model: ModelContext, rows: list[tuple] | None = None) -> list[dict[str, Any]]:
    """The model's classes in their index order, each with its label as a literal
    (``label``) and as text (``key``): all that macros reading their parameters from the
    view need of them. One small read (the fitted parameters are not compiled), unless
    ``rows`` gives its answer (the ``classes`` of :meth:`ModelContext.parameters`)."""
    target_type = model.meta["target_type"]
    classes = []
    if rows is None:
        rows = model.fetch("catalog/read_params.sql#classes")
    for index, label, _ in rows:
        key = str(label)
        classes.append({"index": index, "label_value": label, "key": key,
                        "label": model.dialect.lit(label, target_type),
                        "comment": comment_text(key)})
    return classes


def macros_sql(model: ModelContext, *, arrays: bool, joint_only: bool = False) -> str:
    """The statement (re)creating the model's scoring macros (``score/scoring_macros.sql``).

    ``arrays``: macros whose text names the features and classes but no fitted number;
    they read the parameters from ``<name>_scoring_params`` at each call (families with an
    ``array_kind``). Otherwise every parameter is a literal of the macros' text. Engines
    whose dialect stores SQL functions instead (Spark) get :func:`functions_sql`'s.
    ``joint_only``: only ``<name>_joint_log_likelihood``, the macro the others call."""
    if model.dialect.stored_scoring == "functions":
        return functions_sql(model)
    text = None if arrays else model.parameters().get("text")
    if not text and model.reads_terms:  # long input
        raise UnsupportedError(
            "long-input models have no scoring macros (a macro scores one row, a long "
            "table spreads a document over many): score them with predict*"
        )
    if text:  # a text model: the macro tokenises the row's text column (one reference)
        classes = [{**c, "key": str(c["label_value"]), "comment": comment_text(str(c["label_value"]))}
                   for c in model.parameters()["compiled"]]
        text_form = {**text, "column": model.dialect.field(ROW, text["column"]),
                     "source_column": model.dialect.ident(text["column"])}
        groups = model.parameters().get("text_groups")
        if groups:  # per group: the row (named once) goes to its group's model
            group_names = [name for name, _ in model.spec.groups]
            text_form.update(
                column=model.dialect.field(ROW_ONCE, text["column"]), groups=groups,
                group_fields=[model.dialect.field(ROW_ONCE, g) for g in group_names],
                group_columns=[model.dialect.ident(g) for g in group_names])
        form = {"row": ROW_ONCE if groups else ROW, "row_once": False, "grouped_model": False,
                "group_table": None, "text": text_form}
    elif arrays:
        classes = labelled_classes(model, model.parameters()["classes"])
        meta_features = model.meta["features"]
        features = [{"name": f["name"], "double": False,
                     "column": model.dialect.field(ROW_ONCE, f["name"])} for f in meta_features]
        # the score table macro reads the relation's columns themselves
        table_features = [{**f, "column": model.dialect.ident(f["name"])} for f in features]
        form = {"row": ROW_ONCE, "row_once": True, "grouped_model": False,
                "group_table": None, "params_table": True,
                "params_table_name": params_table_name(model.name),
                "features": features, "table_features": table_features,
                "kind": model.family.array_kind,
                "any_float": any(model.dialect.kind(f["type"]) == "float"
                                 for f in meta_features),
                "binarize": scoring.binarize_threshold(model),
                "missing": model.family.params.get("missing", "ignore"),
                "row_keys": model.engine.macro_row_keys}
        # the parameters written in the text as one weight matrix where the form applies
        # (re-created by every write); else read from the parameter view at each call
        matrix = scoring.weight_matrix(model, careful=form["missing"] != "error")
        if matrix is not None:
            form["matrix"] = {
                "kind": matrix["kind"],
                "weights": scoring.matrix_literal(model.dialect, matrix["rows"]),
                "shift": None if matrix["shift"] is None
                else scoring.list_literal(model.dialect, matrix["shift"])}
    else:
        grouped = bool(model.parameters().get("groups"))
        references = len(model.meta["features"]) * len(model.parameters()["classes"])
        row = ROW_ONCE if grouped or references > DIRECT_REFERENCES else ROW
        lookups: list[dict[str, Any]] = []
        if not grouped:  # wide categorical features: a join, in a subquery naming the row
            classes, lookups = joined_lookups(compiled_classes(model, row=ROW_ONCE),
                                              model.dialect)
            row = ROW_ONCE if lookups else row
        if not lookups:
            classes = compiled_classes(model, row=row)
        group_table = group_parameter_table(model, row=row) if grouped else None
        form = {"row": row, "row_once": row == ROW_ONCE, "lookups": lookups,
                "grouped_model": group_table is not None, "group_table": group_table}
    keys = [c["key"].lower() for c in classes]
    clash = sorted({c["key"] for c in classes if keys.count(c["key"].lower()) > 1})
    quoted = {role: model.dialect.ident(macro) for role, macro in macro_names(model.name).items()}
    lacks = (f"model {model.name}: the row given to its scoring macros lacks a feature "
             f"column (the model's features are the rows of {relation_name(model.name, 'features')})")
    return model.render(
        "score/scoring_macros.sql", classes=classes, m=quoted, lacks_feature=lacks,
        key_clash=_key_clash_message(model.name, clash) if clash else None,
        joint_only=joint_only, model_comment=comment_text(model.name), **form)


def functions_sql(model: ModelContext, *, joint_only: bool = False) -> str:
    """The statements (re)creating the model's scoring functions in Spark SQL
    (``score/scoring_functions.sql``): each takes the row's columns as a STRUCT (the
    features, or a text model's text column, and a per-group model's group columns),
    every parameter a literal of its text, in the engine's database. The joint
    log-likelihood function and ``<name>_explain`` (explain's rows of the row: an array of
    (class, feature, log_likelihood, log_prior), for models over columns without groups)
    hold the parameters (the others call the joint one): ``joint_only`` re-creates just
    those two (a write that kept the classes and features).

    A per-group model's joint function picks the row's group's parameters (a CASE on the
    group columns over each group's literals; a group no fit saw, or a NULL group column,
    gets the pooled model's, as ``predict`` answers); a text model's tokenises the row's
    text with Spark's array functions and looks its terms up in the vocabulary inlined
    as one JSON literal (a per-group text model's: each group's)."""
    compiled = model.parameters()
    text = compiled.get("text")
    if model.reads_terms and not text:
        raise UnsupportedError(
            "long-input models have no scoring functions (a function scores one row, a "
            "long table spreads a document over many): score them with predict*")
    dialect = model.dialect
    group_names = [name for name, _ in model.spec.groups]
    group_table = None
    if text:
        classes = [{**c, "key": str(c["label_value"]),
                    "comment": comment_text(str(c["label_value"]))}
                   for c in compiled["compiled"]]
        column_fields = [{"name": text["column"], "type": "VARCHAR"}]
    else:
        classes = compiled_classes(model, row=ROW)
        column_fields = model.meta["features"]
        if compiled.get("groups"):
            group_table = group_parameter_table(model, row=ROW)
    keys = [c["key"].lower() for c in classes]
    clash = sorted({c["key"] for c in classes if keys.count(c["key"].lower()) > 1})
    unquotable = [c["key"] for c in classes if "${" in c["key"]]
    message = _key_clash_message(model.name, clash) if clash else None
    if unquotable and not clash:  # Spark would substitute a variable into the field name
        message = (f"model {model.name}: class labels {unquotable} hold '${{', which Spark "
                   f"SQL cannot quote as a STRUCT field: use {model.name}_predict (the label) "
                   f"or {model.name}_joint_log_likelihood (an array in class order), or "
                   "relabel the classes")
    named = {f["name"] for f in column_fields}
    types = dict(model.spec.groups)
    fields = [{"name": dialect.ident(f["name"]), "type": dialect.type_name(f["type"])}
              for f in column_fields]
    fields += [{"name": dialect.ident(g), "type": dialect.type_name(types[g])}
               for g in group_names if g not in named]
    quoted = {role: model.engine.table(function)
              for role, function in macro_names(model.name).items()}
    explained = []
    if not (text or group_table):  # per-group and text models' rows need more than a row
        explained = [{**_explained_class(model, c, None), "comment": c["comment"]}
                     for c in with_categories(model, classes)]
    form: dict[str, Any] = {"group_table": None, "text": None}
    if group_table is not None:  # each group's parameters as a STRUCT, chosen by a CASE
        n_groups = len(group_names)
        form["group_table"] = {
            **group_table,
            "alias": GROUP_ALIAS,
            "branches": [{"when": [f"{value} = {literal}" for (_, value), literal
                                   in zip(group_table["join"], row[:n_groups])],
                          "fields": list(zip(group_table["names"][n_groups:],
                                             row[n_groups:]))}
                         for row in group_table["rows"]]}
    if text:
        models = _function_vocabularies(model)
        routes = []
        for position, g in enumerate(compiled.get("text_groups") or [], start=1):
            routes.append({"position": position, "when": [
                f"{dialect.field(ROW, name)} = {value}"
                for name, value in zip(group_names, g["values"])]})
        form["text"] = {**text, "column": dialect.field(ROW, text["column"]),
                        "parameters": models, "routes": routes}
    return model.render(
        "score/scoring_functions.sql", classes=classes, m=quoted, row=dialect.ident(ROW),
        explained=explained, grouped_model=group_table is not None,
        fields=fields, label_type=dialect.type_name(model.meta["target_type"]),
        key_clash=message, joint_only=joint_only,
        model_comment=comment_text(model.name), **form)


def _function_vocabularies(model: ModelContext) -> str:
    """A text model's parameters as the one JSON literal its scoring functions read: a list
    with the pooled model's, then each group's (a per-group text model's, in the order of
    its groups), each ``{"k": class constants, "v": {term: {"i": idf, "c": coefficient per
    class}}}`` in the pooled model's class order; a class a group never saw has the
    constant -Infinity and no coefficient (null). Every digit is kept."""
    compiled = model.parameters()
    classes = compiled["compiled"]
    position = {c["index"]: i for i, c in enumerate(classes)}
    groups = compiled.get("text_groups") or []
    models = [{"t": model.tables, "class_map": None,
               "constants": {c["index"]: c["constant"] for c in classes}}, *groups]
    document = []
    for m in models:
        pooled = (list(range(len(classes))) if m["class_map"] is None
                  else [position[index] for _, index in sorted(m["class_map"])])
        constants = [m["constants"].get(c["index"]) for c in classes]
        vocabulary = {}
        for term, idf, values in model.fetch("text/inline_terms.sql", t=m["t"]):
            by_class = dict(zip(pooled, values))
            vocabulary[term] = {"i": _json_number(idf), "c": [
                None if i not in by_class else _json_number(by_class[i])
                for i in range(len(classes))]}
        document.append({"k": [_json_number(-math.inf if k is None else k) for k in constants],
                         "v": vocabulary})
    return json.dumps(document, ensure_ascii=False, allow_nan=False)


def explain_sql(model: ModelContext, source_sql: str, *, columns: dict[str, str] | None = None,
                top: int | None = None, row: int | None = None,
                dialect: Dialect | None = None, inlined: bool = False,
                from_view: bool = False) -> str:
    """The statement explaining ``source_sql`` (``reports/explain.sql``): each feature's term of each
    class's joint log-likelihood per row, or with ``top`` the ``top`` features that most
    favour the prediction over the runner-up; ``row``: that input row only. Every
    parameter is inlined, so the same text serves ``explain`` and ``to_sql(output="explain")``;
    with ``from_view`` the parameters are columns of the one-row view
    ``<name>_explain_params`` instead (the ``<name>_explain`` macro of a model
    :func:`explain_reads_view` covers, which a write that keeps the classes, features and
    hyperparameters need not re-create). ``columns`` maps feature names to the SQL that
    reads them; ``dialect`` (default: the engine's) is the SQL it is written in."""
    dialect = dialect or model.dialect
    if dialect is not model.dialect and columns is None:
        columns = {name: dialect.ident(name) for name in model.features_}
    columns = columns or {}
    group_table = group_parameter_table(model, columns=columns or None)
    lookups: list[dict[str, Any]] = []
    params = None
    if from_view:
        compiled, unpacked = _view_classes(model, columns)
        params = {"relation": model.tables["explain_params"], "columns": unpacked}
    else:
        # a feature of many categories reads its terms from a joined relation, as predict's
        # statement does (an expression naming 50,000 categories takes DuckDB a second to plan)
        compiled = compiled_classes(model, columns=columns, dialect=dialect)
        if inlined or dialect is not model.dialect:  # (``inlined``: to_sql's, reading no table)
            compiled = with_categories(model, compiled)
        compiled, lookups = joined_lookups(compiled, dialect)
    classes = [_explained_class(model, c, group_table) for c in compiled]
    cleaned = _clean_once(dialect, classes)
    features = [{"name": f["name"], "column": columns.get(f["name"], dialect.ident(f["name"]))}
                for f in model.meta["features"]]
    return render(
        "reports/explain.sql", dialect=dialect,
        **model.template_context(source=source_sql, classes=classes, features=features,
                                 row=row, cleaned=cleaned, group_table=group_table,
                                 lookups=lookups,
                                 top=None if top is None else min(top, len(features)),
                                 params=params,
                                 model_comment=comment_text(model.name)))


def explain_macro_sql(model: ModelContext) -> str | None:
    """The statement (re)creating the table macro ``<name>_explain(relation)``: ``explain``'s
    statement over ``query_table(relation)`` (``SELECT * FROM churn_explain('customers')``),
    its parameters read from the view ``<name>_explain_params`` where
    :func:`explain_reads_view` (create the view first: :func:`explain_params_sql`), else
    inlined (a text model's, per-group ones too: :func:`text_explain_sql`, reading its
    tables). None where there is none: engines that store functions (Spark), long-input
    models."""
    text = model.parameters().get("text")
    if model.dialect.stored_scoring != "macros" or (model.reads_terms and not text):
        return None
    source = "query_table(relation)"
    return model.engine.render(
        "reports/explain_macro.sql", model=model.name,
        name=model.dialect.ident(macro_names(model.name)["explain"]),
        body=(text_explain_sql(model, source, inlined=False) if text
              else explain_sql(model, source, from_view=explain_reads_view(model))))


def explain_reads_view(model: ModelContext) -> bool:
    """Whether the model's explain macro reads its parameters from the view
    ``<name>_explain_params``: a model of one family over columns whose parameters are a few
    numbers per class and feature (no categories, no groups), on DuckDB."""
    family = model.family
    return (model.dialect.stored_scoring == "macros" and model.one_column_part()
            and not family.per_category)


EXPLAIN_PARAMS = "priors"  # the name reports/explain.sql gives the row of the view


def _slot(*pieces: Any) -> str:
    """A column of ``<name>_explain_params``: ``__sqlnb_p_<class>[_<parameter>]``."""
    return "__sqlnb_p_" + "_".join(str(p) for p in pieces)


def explain_params_sql(model: ModelContext) -> str:
    """The statement (re)creating the view ``<name>_explain_params`` (one row: each class's
    constant, and per class and scoring parameter a list in feature order) that the
    explain macro of a model :func:`explain_reads_view` covers reads."""
    classes = [index for index, _, _ in model.fetch("catalog/read_params.sql#classes")]
    parameters = model.family.scoring_parameters
    ident = model.dialect.ident
    constants = [{"class_index": i, "alias": ident(_slot(i))} for i in classes]
    lists = [{"class_index": i, "position": k, "alias": ident(_slot(i, name))}
             for i in classes for k, name in enumerate(parameters)]
    return model.render("reports/explain_params.sql", constants=constants, lists=lists,
                        parameters=parameters, model_comment=comment_text(model.name))


def _view_classes(model: ModelContext, columns: dict[str, str]
                  ) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The model's classes as ``reports/explain.sql`` reads them, each parameter an
    ``Expression`` naming a column of the parameters' row (the family's templates render
    them unchanged, as they render a per-group model's joined parameters), and those
    columns: each a ``value`` read from a list of ``<name>_explain_params`` and its
    ``alias`` (read once per statement: a term names its parameters several times)."""
    dialect = model.dialect
    family = model.family

    def column(*pieces: Any) -> Expression:
        return Expression(dialect.column(EXPLAIN_PARAMS, _slot(*pieces)))

    classes, unpacked = [], []
    for c in labelled_classes(model):
        i = c["index"]
        terms = []
        for j, f in enumerate(model.meta["features"]):
            name = f["name"]
            term = {"name": name, "column": columns.get(name, dialect.ident(name)),
                    "family": family.name, "guard": dialect.kind(f["type"]) == "float"}
            for p in family.scoring_parameters:
                unpacked.append({"value": f"{dialect.column('__sqlnb_lists', _slot(i, p))}[{j + 1}]",
                                 "alias": dialect.ident(_slot(i, j, p))})
                term[p] = column(i, j, p)
            terms.append(term)
        classes.append({"index": i, "label": c["label"], "constant": column(i),
                        "terms": terms})
    return classes, unpacked


def _clean_once(dialect: Dialect, classes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The numeric features whose terms test for NaN, read once per row as a DOUBLE with
    NaN as NULL (a column of the numbered rows) rather than tested again in every class's
    term: the terms of ``classes`` then read that column, untested."""
    cleaned: dict[str, dict[str, Any]] = {}
    for c in classes:
        for entry in c["entries"]:
            term = entry["term"]
            if term.get("guard") and FAMILIES[term["family"]].numeric:  # not per-group terms
                name = term["name"]
                if name not in cleaned:
                    alias = dialect.ident(f"__sqlnb_value_{len(cleaned)}")
                    cleaned[name] = {"column": term["column"], "guard": True, "alias": alias}
                term["column"], term["guard"] = cleaned[name]["alias"], False
    return list(cleaned.values())


def _explained_class(model: ModelContext, c: dict[str, Any],
                     group_table: dict[str, Any] | None) -> dict[str, Any]:
    """One compiled class as ``reports/explain.sql`` reads it: its label, constant and per feature
    (model order) its family's template and parameters and its scoring term; for a
    per-group model also the same for the row's group (parameters read from its columns)."""
    if c.get("parts"):  # family="auto": each part is a family over some of the columns
        pieces = [(part["template"], part["p"], term)
                  for part in c["parts"] for term in part["c"]["terms"]]
    else:
        pieces = [(model.family.template, model.family.params, term) for term in c["terms"]]
    order = {name: i for i, name in enumerate(model.features_)}
    explained = {"index": c["index"], "label": c["label"], "constant": c["constant"],
                 "entries": [{"template": template, "p": p, "term": dict(term)} for
                             template, p, term in sorted(pieces,
                                                         key=lambda e: order[e[2]["name"]])]}
    if group_table is not None:
        group_model = group_table["models"][c["index"]]
        explained["group_constant"] = group_model["constant"]
        if group_model.get("parts"):  # family="auto": the group's parts, as the pooled ones
            group_pieces = [(part["template"], part["p"], term)
                            for part in group_model["parts"] for term in part["c"]["terms"]]
        else:
            group_pieces = [(model.family.template, model.family.params, term)
                            for term in group_model["terms"]]
        explained["group_entries"] = [
            {"template": template, "p": p, "term": term} for template, p, term in
            sorted(group_pieces, key=lambda e: order[e[2]["name"]])]
    return explained


def _key_clash_message(name: str, labels: list[str]) -> str:
    """Why ``<name>_predict_proba`` cannot exist: its STRUCT has a field per class, and
    DuckDB compares field names case-insensitively."""
    return (f"model {name}: class labels {labels} differ only by case, and a STRUCT cannot "
            f"have both as fields: use {name}_predict (the label) or "
            f"{name}_joint_log_likelihood (a list in class order), or relabel the classes")


# A source given as a query rather than a relation: its first keyword.
BARE_QUERY = re.compile(r"(SELECT|WITH|FROM|VALUES|TABLE)\b", re.IGNORECASE)


def to_sql(model: ModelContext, source: str = "source", output: str = "predict",
           prediction: str = "prediction", dialect: str = "duckdb",
           top: int | None = None) -> str:
    """One self-contained SELECT that scores ``source`` with every parameter inlined.

    ``source`` is SQL for the relation to score, inserted as written: a table name,
    ``read_parquet('new/*.parquet')`` or a parenthesised query (a bare query, one that
    starts with SELECT, WITH, FROM, VALUES or TABLE, is put in parentheses). ``output`` is
    ``"predict"`` (a ``prediction`` column), ``"predict_proba"`` (the prediction and one
    ``proba_<class>`` column per class), ``"proba"``, ``"log_proba"`` or ``"joint"``.
    The result keeps every column of the source. ``output="explain"`` is instead
    ``explain``'s statement (one row per input row, class and feature; with ``top=k`` the
    ``k`` features behind each prediction; see docs/explain.md). ``dialect`` is the SQL it
    is written in: ``"duckdb"`` or ``"spark"`` (Spark SQL; see docs/spark.md).
    """
    if output not in STANDALONE_OUTPUTS and output != "explain":
        raise InvalidParameterError(
            f"output must be one of {', '.join(STANDALONE_OUTPUTS)} or explain, got {output!r}"
        )
    if top is not None and (output != "explain" or isinstance(top, bool)
                            or not isinstance(top, int) or top < 1):
        raise InvalidParameterError(
            f"top is a positive integer, with output='explain' only; got {top!r}")
    if not isinstance(source, str) or not source.strip():
        raise InvalidParameterError("source must be the SQL text of a relation")
    target = dialect_named(dialect)
    source = source.strip()
    if BARE_QUERY.match(source):
        source = "(" + source.rstrip("; \t\r\n") + "\n)"  # (after a trailing -- comment)
    compiled = model.parameters()
    if compiled.get("text"):
        if target is not model.dialect:
            check_translatable(model, target, output, features=False)
        if output == "explain":
            return text_explain_sql(model, source, top=top, dialect=target)
        return text_scoring_sql(model, source, output, prediction=prediction,
                                output_prefix=STANDALONE_OUTPUTS[output], dialect=target)
    if model.reads_terms:  # long input, scored by a join
        raise UnsupportedError(
            "to_sql is not available for long-input models: score them with predict* "
            "(a join of the long table with the coefficients)"
        )
    if target is not model.dialect:
        check_translatable(model, target, output)
    if output == "explain":
        return explain_sql(model, source, top=top, dialect=target, inlined=True)
    return scoring_sql(model, source, output, prediction=prediction,
                       output_prefix=STANDALONE_OUTPUTS[output], dialect=target)


def check_translatable(model: ModelContext, dialect: Dialect, output: str = "predict", *,
                       features: bool = True) -> None:
    """Refuse, naming what is DuckDB-only, a model whose scoring statement cannot be
    written in ``dialect``: labels of a type it lacks, names it cannot
    quote (feature names, and labels when they name output columns). (Feature names
    that differ only by case, which Spark would not tell apart, cannot reach a model:
    DuckDB's column names are case-insensitive too.)"""
    where = f"to_sql(dialect={dialect.name!r})"
    target_type = model.meta["target_type"]
    if not dialect.has_type(target_type):
        raise UnsupportedError(
            f"{where}: the class labels have the DuckDB type {target_type}, which "
            f"{dialect.name} lacks: fit on the labels cast to VARCHAR or an integer type, or "
            "score on DuckDB (to_sql())"
        )
    # (a text model's features are terms; a per-group text model routes by its group columns)
    names = list(model.features_) if features else [name for name, _ in model.spec.groups]
    for name, sql_type in ([] if features else model.spec.groups):
        if not dialect.has_type(sql_type):
            raise UnsupportedError(
                f"{where}: the group column {name!r} has the DuckDB type {sql_type}, which "
                f"{dialect.name} lacks: fit on the column cast to VARCHAR or an integer type, "
                "or score on DuckDB (to_sql())"
            )
    if STANDALONE_OUTPUTS.get(output) is not None:
        names += [f"{STANDALONE_OUTPUTS[output]}{label}" for label in model.classes_]
    for name in names:
        try:
            dialect.ident(name)
        except ValueError as exc:
            raise UnsupportedError(
                f"{where}: {exc}: rename the column (or relabel the class) and fit again, or "
                "score on DuckDB (to_sql())"
            ) from None


def scoring_sql(model: ModelContext, source_sql: str, output: str, *, prediction: str,
                output_prefix: str | None, columns: dict[str, str] | None = None,
                dialect: Dialect | None = None) -> str:
    """The standalone scoring statement (``to_sql``'s, also used by ``evaluate``); a text
    model's tokenises its text column (:func:`text_scoring_sql`).

    ``columns`` maps feature names to the SQL expressions that read them (default: the
    source's columns of those names). ``dialect`` (default: the model engine's) is the SQL
    it is written in."""
    if model.parameters().get("text_groups"):
        if dialect not in (None, model.dialect):
            raise UnsupportedError("a per-group text model is scored on DuckDB only")
        return grouped_text_sql(model, source_sql, output, prediction=prediction,
                                output_prefix=output_prefix)
    if model.parameters().get("text"):
        return text_scoring_sql(model, source_sql, output, prediction=prediction,
                                output_prefix=output_prefix, dialect=dialect)
    if model.reads_terms:  # long input, scored by a join
        raise UnsupportedError(
            "a long-input model has no standalone scoring statement: score it with "
            "predict* (a join of the long table with the coefficients)"
        )
    meta = model.meta
    dialect = dialect or model.dialect
    if dialect is not model.dialect and columns is None:
        columns = {name: dialect.ident(name) for name in model.features_}
    group_table = group_parameter_table(model, columns=columns, dialect=dialect)
    classes = with_categories(model, compiled_classes(
        model, output_prefix=output_prefix, columns=columns, dialect=dialect))
    lookups: list[dict[str, Any]] = []
    if group_table is None:
        classes, lookups = joined_lookups(classes, dialect)
    if group_table is not None:
        for c in classes:
            c["group_model"] = group_table["models"][c["index"]]
            c["matched"] = group_table["matched"]
    return render(
        "score/standalone_score.sql",
        dialect=dialect,
        **model.template_context(
            source=source_sql,
            model_comment=comment_text(model.name),
            engine_title=dialect.title,
            output=output,
            classes=classes,
            grouped_model=group_table is not None,
            group_table=group_table,
            lookups=lookups,
            prediction=dialect.ident(prediction),
            n_features=len(meta["features"]),
            fitted_at=str(meta["fitted_at"])[:19],
            version=_version(),
        ),
    )


def text_scoring_sql(model: ModelContext, source_sql: str, output: str, *, prediction: str,
                     output_prefix: str | None, dialect: Dialect | None = None) -> str:
    """A text model's standalone scoring statement: the source's text column tokenised as
    the fit tokenised it, joined with the vocabulary inlined (each term's idf and
    coefficients), summed per document. ``dialect`` (default: the model engine's) is the
    SQL it is written in."""
    compiled = model.parameters()
    dialect = dialect or model.dialect
    parameters, n_terms = _inlined_vocabulary(model)
    classes = []
    target_type = model.meta["target_type"]
    for c in compiled["compiled"]:
        key = str(c["label_value"])
        output_name = None if output_prefix is None else dialect.ident(f"{output_prefix}{key}")
        classes.append({**c, "output": output_name, "comment": comment_text(key),
                        "label": dialect.lit(c["label_value"], target_type),
                        **{role: dialect.ident(f"__sqlnb_{role}_{c['index']}")
                           for role in ("jll", "coef", "sum")}})
    text = {**compiled["text"], "column": dialect.ident(compiled["text"]["column"]),
            "parameters": parameters}
    if compiled.get("text_groups"):  # each row scored by its group's model
        text.update(groups=_groups_in(model, dialect), group_columns=_group_columns(model, dialect))
    return render(
        "score/standalone_score.sql",
        dialect=dialect,
        **model.template_context(
        source=source_sql,
        model_comment=comment_text(model.name),
        engine_title=dialect.title,
        output=output,
        classes=classes,
        grouped_model=False,
        group_table=None,
        text=text,
        prediction=dialect.ident(prediction),
        n_features=n_terms,
        fitted_at=str(compiled["fitted_at"])[:19],
        version=_version(),
    ))


def _group_columns(model: ModelContext, dialect: Dialect) -> list[str]:
    """A per-group text model's group columns, quoted in ``dialect``."""
    return [dialect.ident(name) for name, _ in model.spec.groups]


def _groups_in(model: ModelContext, dialect: Dialect) -> list[dict[str, Any]]:
    """A per-group text model's groups (:func:`sqlnb.text.read_group_models`), their values
    spelt in ``dialect``."""
    groups = model.parameters()["text_groups"]
    if dialect is model.dialect:
        return groups
    types = [sql_type for _, sql_type in model.spec.groups]
    return [{**g, "values": [dialect.lit(v, t) for v, t in zip(g["raw"], types)]}
            for g in groups]


def _inlined_vocabulary(model: ModelContext) -> tuple[str, int]:
    """A text model's vocabulary as the JSON literal its inlined statements read (each
    term, its idf and its coefficient per class, every digit kept), and its size. A
    per-group text model's holds every model's vocabulary (the pooled one, then each
    group's, as ``model`` numbers them), each group's coefficients numbered by the pooled
    model's classes (null for a class the group never saw)."""
    compiled = model.parameters()
    n_classes = len(compiled["compiled"])
    groups = compiled.get("text_groups")
    models = [{"index": 0, "t": model.tables, "class_map": None}, *(groups or [])]
    position = {c["index"]: i for i, c in enumerate(compiled["compiled"])}
    numbers, terms, idfs = [], [], []
    coefs: list[list[float | str | None]] = [[] for _ in range(n_classes)]
    for m in models:
        rows = model.fetch("text/inline_terms.sql", t=m["t"])
        # a group's lists follow its own class indexes: put each at its pooled class
        pooled = (list(range(n_classes)) if m["class_map"] is None
                  else [position[index] for _, index in sorted(m["class_map"])])
        for term, idf, values in rows:
            numbers.append(m["index"])
            terms.append(term)
            idfs.append(_json_number(idf))
            by_class = dict(zip(pooled, values))
            for i in range(n_classes):
                coefs[i].append(None if i not in by_class else _json_number(by_class[i]))
    document: dict[str, Any] = {"model": numbers} if groups else {}
    document.update(term=terms, idf=idfs, coef=coefs)
    return json.dumps(document, ensure_ascii=False, allow_nan=False), len(terms)


def text_explain_sql(model: ModelContext, source_sql: str, *, top: int | None = None,
                     dialect: Dialect | None = None, inlined: bool = True) -> str:
    """A text model's explain statement (``text/explain_terms.sql``) over ``source_sql``
    with its vocabulary, idf and coefficients inlined, so it reads no sqlnb table
    (``to_sql(output="explain")``'s), or unless ``inlined`` read from the model's tables
    when it runs (the ``<name>_explain`` macro's, re-created at every write for its class
    constants: no vocabulary to read and write again). ``dialect`` (default: the model
    engine's) is the SQL it is written in."""
    compiled = model.parameters()
    dialect = dialect or model.dialect
    parameters = _inlined_vocabulary(model)[0] if inlined else None
    target_type = model.meta["target_type"]
    classes = [{**c, "label": dialect.lit(c["label_value"], target_type)}
               for c in compiled["compiled"]]
    text = compiled["text"]
    groups: dict[str, Any] = {}
    if compiled.get("text_groups"):  # each document explained by its group's model
        groups = {"groups": _groups_in(model, dialect),
                  "group_columns": _group_columns(model, dialect)}
    return render(
        "text/explain_terms.sql", dialect=dialect,
        **model.template_context(
            source=source_sql, column=dialect.ident(text["column"]), a=text["a"],
            classes=classes, row=None, top=top, binarize=text["binarize"],
            inlined=parameters, **groups,
            coef_columns=[dialect.ident(f"__sqlnb_coef_{c['index']}") for c in classes]))


def grouped_text_sql(model: ModelContext, source_sql: str, output: str, *,
                     prediction: str, output_prefix: str | None) -> str:
    """A per-group text model's scoring statement over ``source_sql`` (``evaluate``'s):
    each row scored by its group's text model, read from the model's tables; the
    source's columns kept, with the statement's own (see ``score_group_terms.sql``)."""
    compiled = model.parameters()
    dialect, text = model.dialect, compiled["text"]
    classes = [{**c, "output": None if output_prefix is None
                else dialect.ident(f"{output_prefix}{c['label_value']}")}
               for c in compiled["compiled"]]
    return model.render(
        "text/score_group_terms.sql", source=source_sql,
        output=output,
        classes=classes, prediction=dialect.ident(prediction),
        fitted_at=str(compiled["fitted_at"]), binarize=text["binarize"],
        column=dialect.ident(text["column"]), a=text["a"], keep=None,
        groups=compiled["text_groups"],
        group_columns=[dialect.ident(name) for name, _ in model.spec.groups])


def _json_number(value: float) -> float | str:
    """A double for a JSON document DuckDB and Spark read back exactly: finite ones as
    numbers (Python writes the shortest text that round-trips), the others as the text
    both cast ("Infinity", "-Infinity", "NaN")."""
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _version() -> str:
    return __version__


def statement(model: Any, source: Any, output: str = "predict") -> tuple[str, list[Any]]:
    """The SQL and bound parameters ``predict*`` runs on ``source`` (a table name or a
    file path), for ``EXPLAIN`` and benchmarks; ``output`` is ``"predict"``, ``"proba"``,
    ``"log_proba"`` or ``"joint"``; ``model``: a model or its context."""
    model = as_context(model)
    src = model.engine.source(source)
    keep = list(src.columns)
    if scoring.strategy(model, src) == "arrays":
        return scoring.array_score_sql(model, src.sql, output, keep, OUTPUTS[output])
    return score_sql(model, src.sql, output, keep), []
