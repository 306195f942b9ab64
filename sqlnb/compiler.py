"""The scoring compiler: the one place where a fitted model's parameters become the SQL
that scores rows.

``read_parameters`` reads the (small) parameter views once into per-class scoring terms
(each family's ``fill_term``, through ``Family.read_terms``); from those compiled classes
``score_sql`` renders ``predict*``'s statement (``score.sql``, or for per-group models the
routed standalone statement), ``to_sql`` the standalone statement (``standalone_score.sql``,
in any dialect) and ``macros_sql`` the persisted scoring macros (``scoring_macros.sql``;
:mod:`sqlnb.macros` creates and drops them). :mod:`sqlnb.scoring` picks between this
``compiled`` statement and the ``arrays`` one. Text and mixed models compile their classes
in :mod:`sqlnb.text` and :mod:`sqlnb.mixed` (``NaiveBayes.read_parameters`` dispatches).

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i * 1.0 AS x FROM range(6) r(i)")
>>> model = sqlnb.NaiveBayes("demo", con=con).fit("t", "y")
>>> [c["label_value"] for c in read_parameters(model)["compiled"]]
[0, 1]
>>> to_sql(model, "t").startswith("--")
True
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Any

from . import scoring
from .dialect import Dialect, dialect_named
from .errors import InvalidParameterError, UnsupportedError
from .grouping import group_parameter_table
from .missing import plain_classes
from .scoring import OUTPUTS, comment_text, with_chunks
from .templates import render
from .version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from .model import NaiveBayes

ROW = "r"  # the macros' row parameter
ROW_ONCE = "__sqlnb_row"  # the row's name inside a macro that uses its parameter once
# DuckDB copies a macro's argument (the whole row) at every use: past this many feature
# references the macros name the row once (a lambda), slower per row but not per feature.
DIRECT_REFERENCES = 400
MACRO_ROLES = ("joint", "predict", "predict_proba", "predict_log_proba", "score")
STANDALONE_OUTPUTS = {
    "predict": None,
    "predict_proba": "proba_",
    "proba": "proba_",
    "log_proba": "log_proba_",
    "joint": "jll_",
}


def macro_names(name: str) -> dict[str, str]:
    """The unquoted names of a model's macros, by role.

    ``joint`` is ``<name>_joint_log_likelihood``; the others are ``<name>_<role>``.
    """
    suffixes = {"joint": "joint_log_likelihood"}
    return {role: f"{name}_{suffixes.get(role, role)}" for role in MACRO_ROLES}


def params_table_name(name: str) -> str:
    """The unquoted name of the table the array-form macros read: ``<name>_scoring_params``."""
    return f"{name}_scoring_params"


def read_parameters(model: NaiveBayes) -> dict[str, Any]:
    """The model's classes and, per class, its constant and scoring terms (feature order),
    for a model of one family over columns."""
    meta = model.meta
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
        return scoring_sql(model, source_sql, output, prediction=prediction,
                                  output_prefix=OUTPUTS[output], columns=columns)
    dialect = model.dialect
    prefix = OUTPUTS[output]
    classes = []
    for c in (with_columns(c, columns) for c in compiled["compiled"]):
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


def compiled_classes(model: NaiveBayes, row: str | None = None,
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


def labelled_classes(model: NaiveBayes) -> list[dict[str, Any]]:
    """The model's classes in their index order, each with its label as a literal
    (``label``) and as text (``key``): all that macros reading their parameters from the
    view need of them. One small read (the fitted parameters are not compiled)."""
    target_type = model.meta["target_type"]
    classes = []
    for index, label, _ in model.pipeline.fetch("read_params.sql", what="classes"):
        key = str(label)
        classes.append({"index": index, "label_value": label, "key": key,
                        "label": model.dialect.lit(label, target_type),
                        "comment": comment_text(key)})
    return classes


def macros_sql(model: NaiveBayes, *, arrays: bool) -> str:
    """The statement (re)creating the model's scoring macros (``scoring_macros.sql``).

    ``arrays``: macros whose text names the features and classes but no fitted number;
    they read the parameters from ``<name>_scoring_params`` at each call (families with an
    ``array_kind``). Otherwise every parameter is a literal of the macros' text. Engines
    whose dialect stores SQL functions instead (Spark) get :func:`functions_sql`'s."""
    if model.dialect.stored_scoring == "functions":
        return functions_sql(model)
    text = None if arrays else model.parameters().get("text")
    if not text and model.stored_input():
        raise UnsupportedError(
            "long-input models have no scoring macros (a macro scores one row, a long "
            "table spreads a document over many): score them with predict*"
        )
    if text:  # a text model: the macro tokenises the row's text column (one reference)
        classes = [{**c, "key": str(c["label_value"]), "comment": comment_text(str(c["label_value"]))}
                   for c in model.parameters()["compiled"]]
        form = {"row": ROW, "row_once": False, "grouped_model": False, "group_table": None,
                "text": {**text, "column": model.dialect.field(ROW, text["column"]),
                         "source_column": model.dialect.ident(text["column"])}}
    elif arrays:
        classes = labelled_classes(model)
        meta_features = model.meta["features"]
        features = [{"name": f["name"], "double": False,
                     "column": model.dialect.field(ROW_ONCE, f["name"])} for f in meta_features]
        form = {"row": ROW_ONCE, "row_once": True, "grouped_model": False,
                "group_table": None, "params_table": True,
                "params_table_name": params_table_name(model.name),
                "features": features, "kind": model.family.array_kind,
                "any_float": any(model.dialect.kind(f["type"]) == "float"
                                 for f in meta_features),
                "binarize": scoring.binarize_threshold(model),
                "missing": model.family.params.get("missing", "ignore")}
    else:
        grouped = bool(model.parameters().get("groups"))
        references = len(model.meta["features"]) * len(model.parameters()["classes"])
        row = ROW_ONCE if grouped or references > DIRECT_REFERENCES else ROW
        classes = compiled_classes(model, row=row)
        group_table = group_parameter_table(model, row=row) if grouped else None
        form = {"row": row, "row_once": row == ROW_ONCE,
                "grouped_model": group_table is not None, "group_table": group_table}
    keys = [c["key"].lower() for c in classes]
    clash = sorted({c["key"] for c in classes if keys.count(c["key"].lower()) > 1})
    quoted = {role: model.dialect.ident(macro) for role, macro in macro_names(model.name).items()}
    return model.pipeline.render(
        "scoring_macros.sql", classes=classes, m=quoted,
        key_clash=_key_clash_message(model.name, clash) if clash else None,
        model_comment=comment_text(model.name), **form)


def functions_sql(model: NaiveBayes) -> str:
    """The statements (re)creating the model's scoring functions in Spark SQL
    (``scoring_functions.sql``): each takes the row's features as a STRUCT, every
    parameter a literal of its text, in the engine's database."""
    classes = compiled_classes(model, row=ROW)
    keys = [c["key"].lower() for c in classes]
    clash = sorted({c["key"] for c in classes if keys.count(c["key"].lower()) > 1})
    dialect = model.dialect
    unquotable = [c["key"] for c in classes if "${" in c["key"]]
    message = _key_clash_message(model.name, clash) if clash else None
    if unquotable and not clash:  # Spark would substitute a variable into the field name
        message = (f"model {model.name}: class labels {unquotable} hold '${{', which Spark "
                   f"SQL cannot quote as a STRUCT field: use {model.name}_predict (the label) "
                   f"or {model.name}_joint_log_likelihood (an array in class order), or "
                   "relabel the classes")
    fields = [{"name": dialect.ident(f["name"]), "type": dialect.type_name(f["type"])}
              for f in model.meta["features"]]
    quoted = {role: model.engine.table(function)
              for role, function in macro_names(model.name).items()}
    return model.pipeline.render(
        "scoring_functions.sql", classes=classes, m=quoted, row=dialect.ident(ROW),
        fields=fields, label_type=dialect.type_name(model.meta["target_type"]),
        key_clash=message,
        model_comment=comment_text(model.name))


def _key_clash_message(name: str, labels: list[str]) -> str:
    """Why ``<name>_predict_proba`` cannot exist: its STRUCT has a field per class, and
    DuckDB compares field names case-insensitively."""
    return (f"model {name}: class labels {labels} differ only by case, and a STRUCT cannot "
            f"have both as fields: use {name}_predict (the label) or "
            f"{name}_joint_log_likelihood (a list in class order), or relabel the classes")


# A source given as a query rather than a relation: its first keyword.
BARE_QUERY = re.compile(r"(SELECT|WITH|FROM|VALUES|TABLE)\b", re.IGNORECASE)


def to_sql(model: NaiveBayes, source: str = "source", output: str = "predict",
           prediction: str = "prediction", dialect: str = "duckdb") -> str:
    """One self-contained SELECT that scores ``source`` with every parameter inlined.

    ``source`` is SQL for the relation to score, inserted as written: a table name,
    ``read_parquet('new/*.parquet')`` or a parenthesised query (a bare query, one that
    starts with SELECT, WITH, FROM, VALUES or TABLE, is put in parentheses). ``output`` is
    ``"predict"`` (a ``prediction`` column), ``"predict_proba"`` (the prediction and one
    ``proba_<class>`` column per class), ``"proba"``, ``"log_proba"`` or ``"joint"``.
    The result keeps every column of the source. ``dialect`` is the SQL it is written
    in: ``"duckdb"`` or ``"spark"`` (Spark SQL; see docs/spark.md).
    """
    if output not in STANDALONE_OUTPUTS:
        raise InvalidParameterError(
            f"output must be one of {', '.join(STANDALONE_OUTPUTS)}, got {output!r}"
        )
    if not isinstance(source, str) or not source.strip():
        raise InvalidParameterError("source must be the SQL text of a relation")
    target = dialect_named(dialect)
    source = source.strip()
    if BARE_QUERY.match(source):
        source = "(" + source.rstrip("; \t\r\n") + "\n)"  # (after a trailing -- comment)
    compiled = model.parameters()
    if compiled.get("text"):
        if target is not model.dialect:
            raise UnsupportedError(
                f"to_sql(dialect={target.name!r}) cannot score text models: their tokeniser "
                "is written with DuckDB's regular expression and list functions; use "
                "to_sql() and run it on DuckDB"
            )
        return text_scoring_sql(model, source, output, prediction=prediction,
                                output_prefix=STANDALONE_OUTPUTS[output])
    if model.stored_input():
        raise UnsupportedError(
            "to_sql is not available for long-input models: score them with predict* "
            "(a join of the long table with the coefficients)"
        )
    if target is not model.dialect:
        check_translatable(model, target, output)
    return scoring_sql(model, source, output, prediction=prediction,
                       output_prefix=STANDALONE_OUTPUTS[output], dialect=target)


def check_translatable(model: NaiveBayes, dialect: Dialect, output: str = "predict") -> None:
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
    names = list(model.features_)
    if STANDALONE_OUTPUTS[output] is not None:
        names += [f"{STANDALONE_OUTPUTS[output]}{label}" for label in model.classes_]
    for name in names:
        try:
            dialect.ident(name)
        except ValueError as exc:
            raise UnsupportedError(
                f"{where}: {exc}: rename the column (or relabel the class) and fit again, or "
                "score on DuckDB (to_sql())"
            ) from None


def scoring_sql(model: NaiveBayes, source_sql: str, output: str, *, prediction: str,
                output_prefix: str | None, columns: dict[str, str] | None = None,
                dialect: Dialect | None = None) -> str:
    """The standalone scoring statement (``to_sql``'s, also used by ``evaluate``).

    ``columns`` maps feature names to the SQL expressions that read them (default: the
    source's columns of those names). ``dialect`` (default: the model engine's) is the SQL
    it is written in."""
    meta = model.meta
    dialect = dialect or model.dialect
    if dialect is not model.dialect and columns is None:
        columns = {name: dialect.ident(name) for name in model.features_}
    group_table = group_parameter_table(model, columns=columns, dialect=dialect)
    classes = compiled_classes(model, output_prefix=output_prefix, columns=columns,
                               dialect=dialect)
    if group_table is not None:
        for c in classes:
            c["group_model"] = group_table["models"][c["index"]]
            c["matched"] = group_table["matched"]
    return render(
        "standalone_score.sql",
        dialect=dialect,
        **model.pipeline.context(
            source=source_sql,
            model_comment=comment_text(model.name),
            engine_title=dialect.title,
            output=output,
            classes=classes,
            grouped_model=group_table is not None,
            group_table=group_table,
            prediction=dialect.ident(prediction),
            n_features=len(meta["features"]),
            fitted_at=str(meta["fitted_at"])[:19],
            version=_version(),
        ),
    )


def text_scoring_sql(model: NaiveBayes, source_sql: str, output: str, *, prediction: str,
                     output_prefix: str | None) -> str:
    """A text model's standalone scoring statement: the source's text column tokenised as
    the fit tokenised it, joined with the vocabulary inlined (each term's idf and
    coefficients), summed per document."""
    compiled = model.parameters()
    dialect = model.dialect
    rows = model.pipeline.fetch("text/inline_terms.sql")
    n_classes = len(compiled["compiled"])
    parameters = json.dumps({
        "term": [term for term, _, _ in rows],
        "idf": [_json_number(idf) for _, idf, _ in rows],
        "coef": [[_json_number(coefs[i]) for _, _, coefs in rows] for i in range(n_classes)],
    }, ensure_ascii=False, allow_nan=False)
    classes = []
    for c in compiled["compiled"]:
        key = str(c["label_value"])
        output_name = None if output_prefix is None else dialect.ident(f"{output_prefix}{key}")
        classes.append({**c, "output": output_name, "comment": comment_text(key)})
    text = compiled["text"]
    return model.pipeline.render(
        "standalone_score.sql",
        source=source_sql,
        model_comment=comment_text(model.name),
        engine_title=dialect.title,
        output=output,
        classes=classes,
        grouped_model=False,
        group_table=None,
        text={**text, "column": dialect.ident(text["column"]), "parameters": parameters},
        prediction=dialect.ident(prediction),
        n_features=len(rows),
        fitted_at=str(compiled["fitted_at"])[:19],
        version=_version(),
    )


def _json_number(value: float) -> float | str:
    """A double for a JSON document DuckDB reads back exactly: finite ones as numbers
    (Python writes the shortest text that round-trips), the others as text DuckDB casts."""
    return value if math.isfinite(value) else str(value)


def _version() -> str:
    return __version__
