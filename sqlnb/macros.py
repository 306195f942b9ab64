"""Models usable from plain SQL: persisted scoring macros and standalone scoring SQL.

After every fit, sqlnb (re)creates in the model's database a few DuckDB macros that embed
the fitted parameters, so any DuckDB client can score rows without sqlnb installed::

    SELECT *, churn_predict(t) AS prediction FROM customers t;
    SELECT churn_predict_proba(p).yes FROM read_parquet('new/*.parquet') p;
    SELECT * FROM churn_score('customers');

``to_sql`` renders one self-contained SELECT statement with the same parameters inlined,
for a scheduled job or a dbt model. Both reuse each family's ``jll`` template macro: a
macro's terms read struct fields of the row argument (``("r")."feature"``) instead of
columns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .dialect import DUCKDB
from .errors import InvalidParameterError
from .templates import render

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


def _quoted_macro_names(name: str) -> dict[str, str]:
    return {role: DUCKDB.ident(macro) for role, macro in macro_names(name).items()}


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
                     columns: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The model's per-class scoring parameters, ready for a template.

    With ``row``, each term reads the field of that struct (a macro's row argument)
    rather than a column; ``key`` is the class label as text (the struct field name of
    ``<name>_predict_proba``), ``output`` the quoted output column name.
    """
    classes = []
    for c in model._compile()["compiled"]:
        c = with_columns(c, columns)
        terms = c["terms"]
        parts = c.get("parts")
        if row is not None:
            terms = [{**term, "column": DUCKDB.field(row, term["name"])} for term in terms]
            if parts:  # a mixed model: each part's terms read the row's fields too
                parts = [{**part, "c": {**part["c"], "terms": [
                    {**term, "column": DUCKDB.field(row, term["name"])}
                    for term in part["c"]["terms"]]}} for part in parts]
        key = str(c["label_value"])
        output = None if output_prefix is None else DUCKDB.ident(f"{output_prefix}{key}")
        extra = {"parts": parts} if parts else {}
        classes.append(with_chunks({**c, **extra, "terms": terms, "key": key, "output": output,
                                    "comment": comment_text(key), "group_model": None,
                                    "matched": None}))
    return classes


# Terms summed in one flat chain; longer sums are split into chunks. DuckDB's planner slows
# down sharply on long chains of `+` (its common-subexpression pass dominates) and refuses
# depth > 1000. Measured (50k rows x 200 features x 5 classes, Gaussian predict): one chain
# 5.8 s, a balanced tree 2.3 s, chunks of 50 terms 1.4 s.
CHUNK_TERMS = 50


def with_chunks(model: dict[str, Any]) -> dict[str, Any]:
    """``model`` (a constant and scoring terms) with ``chunks``: the same sum split into
    pieces of at most ``CHUNK_TERMS`` terms, the constant in the first. A model of up to
    ``CHUNK_TERMS`` features has one chunk: the same expression as ``predict``'s."""
    if model.get("parts"):  # a mixed model sums its parts; each part is one chunk of terms
        return {**model, "chunks": [model]}
    terms = model["terms"]
    chunks = [{"constant": model["constant"] if i == 0 else 0.0,
               "terms": terms[i:i + CHUNK_TERMS]}
              for i in range(0, max(len(terms), 1), CHUNK_TERMS)]
    return {**model, "chunks": chunks}


def comment_text(text: str) -> str:
    """``text`` made safe for a SQL comment (see ``Dialect.comment``)."""
    return DUCKDB.comment(text)


def create_macros(model: NaiveBayes) -> None:
    """(Re)create the model's scoring macros from its current parameter views.

    Called at the end of every fit, inside the fit's transaction, so the macros always
    agree with the statistics tables: both commit or roll back together.
    """
    from .grouping import group_parameter_table

    model._meta = None
    model._compiled = None
    try:
        grouped = bool(model._compile().get("groups"))
        references = len(model.meta["features"]) * len(model._compile()["classes"])
        row = ROW_ONCE if grouped or references > DIRECT_REFERENCES else ROW
        classes = compiled_classes(model, row=row)
        group_table = group_parameter_table(model, row=row) if grouped else None
        keys = [c["key"].lower() for c in classes]
        clash = sorted({c["key"] for c in classes if keys.count(c["key"].lower()) > 1})
        model._run("scoring_macros.sql", classes=classes, m=_quoted_macro_names(model.name),
                   key_clash=_key_clash_message(model.name, clash) if clash else None,
                   row=row, row_once=row == ROW_ONCE,
                   grouped_model=group_table is not None, group_table=group_table,
                   model_comment=comment_text(model.name))
    finally:
        # The caches were filled from uncommitted state; the caller refreshes them.
        model._meta = None
        model._compiled = None


def _key_clash_message(name: str, labels: list[str]) -> str:
    """Why ``<name>_predict_proba`` cannot exist: its STRUCT has a field per class, and
    DuckDB compares field names case-insensitively."""
    return (f"model {name}: class labels {labels} differ only by case, and a STRUCT cannot "
            f"have both as fields: use {name}_predict (the label) or "
            f"{name}_joint_log_likelihood (a list in class order), or relabel the classes")


def drop_macros(model: NaiveBayes) -> None:
    """Remove the scoring macros the model owns (a text model has none)."""
    from . import ownership

    ownership.release(model, list(macro_names(model.name).values()))


def to_sql(model: NaiveBayes, source: str = "source", output: str = "predict",
           prediction: str = "prediction") -> str:
    """One self-contained SELECT that scores ``source`` with every parameter inlined.

    ``source`` is SQL for the relation to score, inserted as written: a table name,
    ``read_parquet('new/*.parquet')`` or a parenthesised query. ``output`` is
    ``"predict"`` (a ``prediction`` column), ``"predict_proba"`` (the prediction and one
    ``proba_<class>`` column per class), ``"proba"``, ``"log_proba"`` or ``"joint"``.
    The result keeps every column of the source.
    """
    if output not in STANDALONE_OUTPUTS:
        raise InvalidParameterError(
            f"output must be one of {', '.join(STANDALONE_OUTPUTS)}, got {output!r}"
        )
    if not isinstance(source, str) or not source.strip():
        raise InvalidParameterError("source must be the SQL text of a relation")
    return scoring_sql(model, source.strip(), output, prediction=prediction,
                       output_prefix=STANDALONE_OUTPUTS[output])


def scoring_sql(model: NaiveBayes, source_sql: str, output: str, *, prediction: str,
                output_prefix: str | None, columns: dict[str, str] | None = None) -> str:
    """The standalone scoring statement (``to_sql``'s, also used by ``evaluate``).

    ``columns`` maps feature names to the SQL expressions that read them (default: the
    source's columns of those names)."""
    from .grouping import group_parameter_table

    meta = model.meta
    group_table = group_parameter_table(model, columns=columns)
    classes = compiled_classes(model, output_prefix=output_prefix, columns=columns)
    if group_table is not None:
        for c in classes:
            c["group_model"] = group_table["models"][c["index"]]
            c["matched"] = group_table["matched"]
    return render(
        "standalone_score.sql",
        **model._context(
            source=source_sql,
            model_comment=comment_text(model.name),
            output=output,
            classes=classes,
            grouped_model=group_table is not None,
            group_table=group_table,
            prediction=DUCKDB.ident(prediction),
            n_features=len(meta["features"]),
            fitted_at=str(meta["fitted_at"])[:19],
            version=_version(),
        ),
    )


def _version() -> str:
    from . import __version__

    return __version__
