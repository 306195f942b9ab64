"""The scoring compiler's shared pieces, and which SQL statement scores a model's rows.

A class's joint log-likelihood is a constant plus one term per feature; long sums are split
into chunks (DuckDB plans long ``+`` chains slowly, see ``with_chunks``), and text that goes
into a SQL comment is kept on one line and cannot open or close a block comment
(``comment_text``).

Two strategies give the same answers (to floating-point noise):

* ``"compiled"`` (``sql/score/score.sql``) inlines every parameter as a literal: one expression
  per class, features x classes literals in all. DuckDB runs it fast per row, but plans it
  slowly, and planning grows with the statement: wide models and small inputs pay seconds.
* ``"arrays"`` keeps the parameters as data: each row's features become one list, and
  each class's parameters are bound lists (prepared-statement parameters, not SQL text),
  combined by list functions (``list_inner_product``, ``list_distance``). The statement
  grows with features + classes, so planning stays small; per row it does a little more
  work (building the list). Planned at each call it is ``sql/score/score_one_level.sql`` (one
  level over the source, see :func:`one_level_sql`); planned once for small Arrow inputs,
  ``sql/score/score_arrays.sql`` with the lists written in it (:func:`prepared_scores`).

``"auto"`` (the default) takes the compiled form only for narrow models scoring many rows
(or rows it cannot count cheaply), where it wins (see ``COMPILED_MAX_TERMS`` and
``ARRAYS_MAX_ROWS``), and the arrays otherwise. Models the arrays do
not cover yet (categorical and mixed columns, per-group models) always use the compiled
form. Choose per model with ``NaiveBayes(..., scoring="arrays")``.

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i % 2 * 10 + i AS DOUBLE) AS x "
...                 "FROM range(20) r(i)")
>>> model = sqlnb.NaiveBayes("demo", con=con, scoring="arrays").fit("t", "y")
>>> strategy(model)
'arrays'
>>> model.predict("t").limit(2).fetchall()
[(0, 0.0, 0), (1, 11.0, 0)]
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from .context import as_context
from .engines.dialects import DUCKDB, Dialect
from .engines.source import Source
from .errors import CoercedValuesWarning, InvalidDataError, InvalidParameterError
from .families import FAMILIES

if TYPE_CHECKING:  # pragma: no cover
    from .context import ModelContext

# The outputs of scoring: the column prefix of per-class outputs (None: the label only).
OUTPUTS = {
    "predict": None,
    "proba": "proba_",
    "log_proba": "log_proba_",
    "joint": "jll_",
}
STRATEGIES = ("auto", "compiled", "arrays")
# With at most this many features x classes, "auto" keeps the compiled form: its planning
# is still short and its per-row work a little less (measured: benchmarks).
COMPILED_MAX_TERMS = 100
# An input known to hold at most this many rows (an in-memory table, Parquet files whose
# footers say so) is scored with the arrays even by a narrow model: the compiled form's
# planning then costs more than its per-row savings (measured: docs/scoring.md).
ARRAYS_MAX_ROWS = 10_000


# Terms summed in one flat chain; longer sums are split into chunks. DuckDB's planner slows
# down sharply on long chains of `+` (its common-subexpression pass dominates) and refuses
# depth > 1000. Measured (50k rows x 200 features x 5 classes, Gaussian predict): one chain
# 5.8 s, a balanced tree 2.3 s, chunks of 50 terms 1.4 s.
CHUNK_TERMS = 50


def with_chunks(model: dict[str, Any]) -> dict[str, Any]:
    """``model`` (a constant and scoring terms) with ``chunks``: the same sum split into
    pieces of at most ``CHUNK_TERMS`` terms, the constant in the first. A model of up to
    ``CHUNK_TERMS`` features has one chunk: the same expression as ``predict``'s.

    >>> model = {"constant": 0.0, "terms": list(range(120))}
    >>> [len(chunk["terms"]) for chunk in with_chunks(model)["chunks"]]
    [50, 50, 20]
    """
    if model.get("parts"):  # a mixed model sums its parts; each part is one chunk of terms
        return {**model, "chunks": [model]}
    terms = model["terms"]
    # (what a family sums besides its terms, e.g. categorical positions, goes in the first)
    chunks = [{"constant": model["constant"] if i == 0 else 0.0,
               "terms": terms[i:i + CHUNK_TERMS],
               "gather": model.get("gather") if i == 0 else None}
              for i in range(0, max(len(terms), 1), CHUNK_TERMS)]
    return {**model, "chunks": chunks}


def comment_text(text: str, dialect: Dialect = DUCKDB) -> str:
    """``text`` made safe for a SQL comment (see ``Dialect.comment``)."""
    return dialect.comment(text)


def check_strategy(value: Any) -> str:
    """``value`` if it names a scoring strategy, else an ``InvalidParameterError``."""
    if not isinstance(value, str) or value not in STRATEGIES:
        raise InvalidParameterError(
            f"scoring must be one of {', '.join(map(repr, STRATEGIES))}, got {value!r}"
        )
    return value


def covered(model: ModelContext) -> bool:
    """Whether the arrays can score ``model`` (not yet: categorical and mixed columns,
    per-group models, text and long input; and only on an engine with DuckDB's list
    functions, which the engine's capabilities say)."""
    # the metadata row says whether there are groups: no need to read the parameters
    return (model.engine.capabilities.list_lambdas and model.family.array_kind is not None
            and model.one_column_part())


def binarize_threshold(model: ModelContext) -> float | None:
    """Bernoulli's ``binarize`` threshold, applied to the row's values before scoring."""
    if "binarize" in model.family.statistics_params:
        return model.family.params.get("binarize")
    return None


def strategy(model: Any, source: Any = None) -> str:
    """The strategy that scores ``model``'s rows (of ``source``, if given: anything
    ``predict`` takes, or a resolved :class:`sqlnb.engines.source.Source`): ``"compiled"`` or
    ``"arrays"``. With ``scoring="auto"`` a narrow model takes the arrays for a source
    known to be small (see ``ARRAYS_MAX_ROWS``).

    >>> import duckdb, sqlnb
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i AS DOUBLE) AS x "
    ...                 "FROM range(20) r(i)")
    >>> narrow = sqlnb.NaiveBayes("narrow", con=con).fit("t", "y")
    >>> strategy(narrow, "t"), strategy(narrow, con.table("t").to_arrow_table())
    ('compiled', 'arrays')
    """
    model = as_context(model)
    chosen = model.scoring
    compiled = model.parameters()
    if not covered(model) or chosen == "compiled":
        return "compiled"
    if chosen == "arrays":
        return "arrays"
    terms = len(model.meta["features"]) * len(compiled["classes"])
    if terms > COMPILED_MAX_TERMS:
        return "arrays"
    rows = _known_rows(model, source)
    return "arrays" if rows is not None and rows <= ARRAYS_MAX_ROWS else "compiled"


def _known_rows(model: ModelContext, source: Any) -> int | None:
    """The number of rows of ``source`` if the engine knows it cheaply, else None."""
    if source is None:
        return None
    if isinstance(source, Source):
        return model.engine.known_rows(source)
    src = model.engine.source(source)
    try:
        return model.engine.known_rows(src)
    finally:
        model.engine.release(src)


def refresh(model: ModelContext) -> None:
    """Forget ``model``'s cached metadata and parameters if another object or cursor has
    written the model since they were read (each write stamps a new ``fitted_at``).

    Costs one one-row read (a model whose metadata is gone is forgotten too, and a
    transaction the caller has open is left usable); the next ``parameters()`` reads
    everything again in one snapshot."""
    stamp = model.cached_fitted_at
    if stamp is None:
        return
    compiled = model.parameters()
    sql = compiled.get("version_sql")
    if sql is None:  # rendered once per parameters read: a predict loop asks every call
        sql = compiled["version_sql"] = model.render("catalog/read_meta.sql#version")
    rows = model.engine.fetch_readable(sql)
    if not rows or rows[0][0] != stamp:
        model.invalidate()


def _parameters(model: ModelContext) -> dict[str, Any]:
    """Each class's parameters as lists in the model's feature order (cached with the
    compiled parameters, which every write of this object resets), bound or written into
    the statement: never read from ``<name>_scoring_params``, a view that would derive them
    from the statistics again in every statement."""
    compiled = model.parameters()
    if "arrays" in compiled:
        return compiled["arrays"]
    kind = model.family.array_kind
    classes = compiled["compiled"]
    # DuckDB refuses a parameter the statement does not use: bind only what it reads
    error_on_missing = model.family.params.get("missing", "ignore") == "error"
    values: list[Any] = []
    names = None
    if error_on_missing:
        values.append([f["name"] for f in model.meta["features"]])
        names = len(values)
    shift, shift_slot = None, None
    expanded = False
    if kind == "distance":
        # no shift where the expanded form below keeps its digits around 0 (the tiny
        # variances of features constant at 0, as image pixels): the row's list is then
        # the columns themselves, no subtraction per feature to plan or run. Otherwise one
        # shift per feature, the mean of the class in which the feature varies least:
        # x - shift keeps its digits far from the origin, and the expanded form is exact
        # for the class whose terms would cancel the most
        shift = [0.0] * len(classes[0]["terms"])
        expanded = _expansion_keeps_digits(classes, shift)
        if not expanded:
            shift = []
            for f in range(len(classes[0]["terms"])):
                stiffest = min(classes, key=lambda c, f=f: c["terms"][f]["var"])
                shift.append(stiffest["terms"][f]["theta"])
            values.append(shift)
            shift_slot = len(values)
            expanded = _expansion_keeps_digits(classes, shift)
    per_class = []
    for c in classes:
        slots: dict[str, int] = {}

        def bind(name: str, value: Any, slots: dict[str, int] = slots) -> None:
            # with missing="error" the careful form reads none of these; the expanded
            # form reads neither scale nor target
            if error_on_missing and name in ("fallback", "full_constant") + \
                    (("scale", "target") if expanded else ()):
                return
            values.append(value)
            slots[name] = len(values)

        terms = c["terms"]
        if kind == "distance":
            scale = [math.sqrt(0.5 / t["var"]) if t["var"] > 0 else math.inf for t in terms]
            half_log = [0.5 * math.log(2 * math.pi * t["var"]) if t["var"] > 0 else math.inf
                        for t in terms]
            bind("scale", scale)
            bind("target", [(t["theta"] - s) * g for t, s, g in zip(terms, shift, scale)])
            bind("fallback", half_log)
            if expanded:
                # sum_f a_f (x'_f - m_f)^2 = sum a x'^2 - sum 2 a m x' + sum a m^2: two
                # native inner products per class (see _expansion_keeps_digits)
                square = [0.5 / t["var"] for t in terms]
                centre = [t["theta"] - s for t, s in zip(terms, shift)]
                bind("square", square)
                bind("linear", [2.0 * a * m for a, m in zip(square, centre)])
                bind("constant", float(c["constant"])
                     - math.fsum(a * m * m for a, m in zip(square, centre)))
            else:
                bind("constant", float(c["constant"]))
            bind("full_constant", float(c["constant"]))
        elif kind == "counts":
            rates = [float(t["rate"]) for t in terms]
            bind("weights", [float(t["coef"]) for t in terms])
            bind("fallback", rates)
            bind("constant", float(c["constant"]) - math.fsum(rates))
            bind("full_constant", float(c["constant"]))
        else:
            bind("weights", [float(t["coef"]) for t in terms])
            # a missing bernoulli value takes back its log(1 - p) from the constant
            bind("fallback", [-float(t.get("log_neg_prob", 0.0)) for t in terms])
            bind("constant", float(c["constant"]))
            bind("full_constant", float(c["constant"]))
        per_class.append(slots)
    arrays = {"kind": kind, "values": values, "classes": per_class, "names": names,
              "shift": shift_slot, "expanded": expanded}
    compiled["arrays"] = arrays
    return arrays


# The expanded Gaussian form is used while sum_f a_cf m_cf^2 (a = 1 / (2 var), m = theta -
# shift) stays at most this for every class: its rounding error is then about
# 2^-52 x (|joint log-likelihood| + this), far inside 1e-9 of scikit-learn's answers.
EXPANDED_MAX_CANCELLATION = 1e4


def _expansion_keeps_digits(classes: list[dict[str, Any]], shift: list[float]) -> bool:
    """Whether the Gaussian may be scored as inner products (``sum a x'^2 - sum 2 a m x' +
    sum a m^2``) rather than from differences: where a variance is tiny (a feature constant
    in a class) and the class mean far from the shift, the terms would cancel and lose the
    digits of the difference. Measured on the digits model: with the shift on the mean of
    the class means, probabilities 2.7e-8 from scikit-learn's; on the mean of the class
    with the smallest variance (see ``_parameters``), 2.6e-14."""
    for c in classes:
        terms = c["terms"]
        if any(t["var"] <= 0 for t in terms):
            return False
        if math.fsum(0.5 / t["var"] * (t["theta"] - s) ** 2
                     for t, s in zip(terms, shift)) > EXPANDED_MAX_CANCELLATION:
            return False
    return True


# A statement planned once builds the row's list from one expression per feature up to this
# many features (digits, 64: 1,797 rows scored in ~5 ms of CPU instead of ~7), and from one
# lambda beyond: planning grows with the expressions (2,000 features: the first call took
# 1.8 s against 0.74 s), and a wide model's small inputs are mostly planning.
PER_COLUMN_MAX_FEATURES = 256
# ... and for inputs of more than this many rows: below, running the statement costs less
# than planning it, and DuckDB 2.0.1 plans it again at every EXECUTE, where one expression
# per feature costs more than the lambda (digits, one row: ~20% of the call).
PER_COLUMN_MIN_ROWS = 64


def array_score_sql(model: ModelContext, source_sql: str, output: str, keep: list[str],
                    output_prefix: str | None, prediction: str = "prediction",
                    columns: dict[str, str] | None = None,
                    literal: bool = False, nulls: bool = True,
                    missing: bool = True, per_column: bool = True) -> tuple[str, list[Any]]:
    """The arrays strategy's statement for a FROM-clause fragment, and its parameters
    (none if ``literal``: the lists are then written in the statement, for a statement
    planned once and run many times, see :func:`prepared_scores`). Not ``nulls``: the
    source holds no NULL in a feature column (a NaN is still read as missing). Not
    ``missing``: no feature holds a NULL or a NaN either, so the statement has the fast
    form alone (half the text to plan). Not ``per_column``: the row's list is one lambda
    even when planned once (see :data:`PER_COLUMN_MIN_ROWS`); and without a missing value
    either, the classes' weights are one matrix (:func:`weight_matrix`).

    Planned at each call (not ``literal``), it is :func:`one_level_sql`'s statement."""
    if not literal:
        return one_level_sql(model, source_sql, output, keep, output_prefix,
                             prediction=prediction, columns=columns)
    arrays = _parameters(model)
    columns = columns or {}
    dialect = model.dialect
    # a few rows without a missing value: the weight matrix, the shortest statement to
    # plan (more rows: the lists below run faster, each class's written once rather than
    # the matrix copied for every row)
    matrix = None if missing or per_column else weight_matrix(model, careful=False)
    if matrix is not None:
        return _matrix_score_sql(model, matrix, source_sql, output, keep, output_prefix,
                                 prediction, columns), []

    def slot(n: int) -> str:
        return list_literal(dialect, arrays["values"][n - 1]) if literal else f"${n}"

    # planned once (literal), the row's list is one expression per feature, its shift
    # written in it: cheap to run; planned per call (or too wide), one lambda: short to plan
    per_column = per_column and literal and \
        len(model.meta["features"]) <= PER_COLUMN_MAX_FEATURES
    shifts = (arrays["values"][arrays["shift"] - 1]
              if per_column and arrays["shift"] is not None else None)
    features = [{"name": f["name"], "column": columns.get(f["name"], dialect.ident(f["name"])),
                 "double": f["name"] not in columns and f["type"].upper() == "DOUBLE",
                 "float": dialect.kind(f["type"]) == "float",
                 "shift": None if shifts is None else dialect.lit(float(shifts[i]))}
                for i, f in enumerate(model.meta["features"])]
    classes = []
    for c, slots in zip(model.parameters()["compiled"], arrays["classes"]):
        out = (None if output_prefix is None
               else dialect.ident(f"{output_prefix}{c['label_value']}"))
        bound = {name: slot(n) for name, n in slots.items()}
        classes.append({**bound, "label": c["label"], "jll": c["jll"], "output": out})
    binarize = binarize_threshold(model)
    sql = model.engine.render(
        "score/score_arrays.sql",
        **model.template_context(
            source=source_sql,
            output=output,
            keep=[dialect.ident(k) for k in keep],
            features=features,
            classes=classes,
            kind=arrays["kind"],
            expanded=arrays.get("expanded", False),
            missing=model.family.params.get("missing", "ignore"),
            names=None if arrays["names"] is None else slot(arrays["names"]),
            shift=None if arrays["shift"] is None else slot(arrays["shift"]),
            binarize=binarize,
            per_column=per_column,
            nulls=nulls,
            careful=missing,
            prediction=dialect.ident(prediction),
        ),
    )
    return sql, [] if literal else arrays["values"]


def _matrix_score_sql(model: ModelContext, matrix: dict[str, Any], source_sql: str,
                      output: str, keep: list[str], output_prefix: str | None,
                      prediction: str, columns: dict[str, str]) -> str:
    """``sql/score/score_matrix.sql``: an input without a missing value scored by the
    weight matrix (:func:`weight_matrix`), written in the statement."""
    dialect = model.dialect
    features = [{"column": columns.get(f["name"], dialect.ident(f["name"])),
                 "double": f["name"] not in columns and f["type"].upper() == "DOUBLE"}
                for f in model.meta["features"]]
    classes = [{"label": c["label"],
                "output": None if output_prefix is None
                else dialect.ident(f"{output_prefix}{c['label_value']}")}
               for c in model.parameters()["compiled"]]
    return model.engine.render(
        "score/score_matrix.sql",
        **model.template_context(
            source=source_sql,
            output=output,
            keep=bool(keep),
            features=features,
            classes=classes,
            kind=matrix["kind"],
            weights=matrix_literal(dialect, matrix["rows"]),
            shift=None if matrix["shift"] is None else list_literal(dialect, matrix["shift"]),
            binarize=binarize_threshold(model),
            prediction=dialect.ident(prediction),
        ),
    )


class _BoundLists:
    """Numbers a template's bound lists in the order it reads them: DuckDB refuses a
    parameter the statement does not use, so only what the rendered text names is bound.
    With a ``literal`` dialect, each list is written in the statement instead (one
    constant, see :func:`list_literal`) and nothing is bound."""

    def __init__(self, literal: Dialect | None = None) -> None:
        self.values: list[Any] = []
        self._slots: dict[Hashable, str] = {}
        self._literal = literal

    def slot(self, key: Hashable, value: Any) -> str:
        if key not in self._slots:
            if self._literal is not None:
                self._slots[key] = list_literal(self._literal, value)
            else:
                self.values.append(value)
                self._slots[key] = f"${len(self.values)}"
        return self._slots[key]


class _ClassLists:
    """One class's lists for a template: ``c.scale`` and the like bind the list when the
    template reads it; ``label`` and ``output`` are SQL text."""

    def __init__(self, bound: _BoundLists, index: int, lists: dict[str, Any],
                 text: dict[str, Any]) -> None:
        self._bound, self._index, self._lists, self._text = bound, index, lists, text

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._text:
            return self._text[name]
        if name in self._lists:
            return self._bound.slot((self._index, name), self._lists[name])
        raise AttributeError(name)


def _class_lists(model: ModelContext) -> list[dict[str, Any]]:
    """Each class's lists by name (cached with the parameters): those of
    :func:`_parameters`, and the weights of the inner products the one-level statement and
    the weight matrix take: ``joined`` (the fast form's, over the row's list, then its
    squares for the expanded Gaussian, or its sum of lgamma(x + 1) for the Poisson) and
    ``careful`` (then one weight per feature, what the constant counted for it and a
    missing value gives back)."""
    compiled = model.parameters()
    if "class_lists" in compiled:
        return compiled["class_lists"]
    arrays = _parameters(model)
    values = arrays["values"]
    kind = "expanded" if arrays.get("expanded") else arrays["kind"]
    found = []
    for c, slots in zip(compiled["compiled"], arrays["classes"]):
        lists = {name: values[n - 1] for name, n in slots.items()}
        if kind == "expanded":
            lists["joined"] = lists["linear"] + [-a for a in lists["square"]]
            shift = (values[arrays["shift"] - 1] if arrays["shift"] is not None
                     else [0.0] * len(c["terms"]))
            lists["careful"] = lists["joined"] + [
                0.5 * math.log(2 * math.pi * t["var"]) + 0.5 / t["var"] * (t["theta"] - s) ** 2
                for t, s in zip(c["terms"], shift)]
        elif kind == "counts":
            lists["joined"] = lists["weights"] + [-1.0]
            lists["careful"] = lists["joined"] + lists.get("fallback", [])
        elif kind == "linear":
            lists["joined"] = lists["weights"]
            lists["careful"] = lists["weights"] + lists.get("fallback", [])
        found.append(lists)
    compiled["class_lists"] = found
    return found


def weight_matrix(model: ModelContext, careful: bool) -> dict[str, Any] | None:
    """The model's scoring as one matrix: a row of weights per class, ``[constant] +
    joined`` (or ``+ careful``, for rows that may miss a value), so that each class's joint
    log-likelihood is one inner product with the row's list ``[1] + z``, and the classes'
    list one ``list_transform`` over the matrix. Written in a statement as two constants
    (the matrix and the Gaussian's shift), it is short to plan: DuckDB 2.0.1 plans a
    prepared statement again at every EXECUTE, and a macro's body is planned at every
    call. Returns ``{"kind", "rows", "shift"}``, or None where the form does not apply
    (the Gaussian's differences, kept where the expansion would lose digits; ``careful``
    without the lists it needs (``missing="error"``); a weight that is not finite, which a
    0 of the row would make NaN)."""
    arrays = _parameters(model)
    kind = "expanded" if arrays.get("expanded") else arrays["kind"]
    if kind == "distance":
        return None
    name = "careful" if careful else "joined"
    lists = _class_lists(model)
    if any(name not in c for c in lists):
        return None
    rows = [[float(c["constant"])] + [float(v) for v in c[name]] for c in lists]
    if not all(math.isfinite(v) for row in rows for v in row[1:]):
        return None
    values = arrays["values"]
    shift = None if arrays["shift"] is None else [float(v) for v in values[arrays["shift"] - 1]]
    return {"kind": kind, "rows": rows, "shift": shift}


def matrix_literal(dialect: Dialect, rows: list[list[float]]) -> str:
    """A list of lists of doubles as one SQL constant (a string cast to ``DOUBLE[][]``,
    the digits read back exactly, as in :func:`list_literal`)."""
    text = "[" + ", ".join("[" + ", ".join(repr(v) for v in row) + "]" for row in rows) + "]"
    return f"CAST({dialect.string(text)} AS DOUBLE[][])"


# Statements of one_level_sql kept per model version (the source, output and columns differ
# between calls; a service scoring the same files or tables again renders nothing).
ONE_LEVEL_CACHE = 16


def one_level_sql(model: ModelContext, source_sql: str, output: str, keep: list[str],
                  output_prefix: str | None, prediction: str = "prediction",
                  columns: dict[str, str] | None = None,
                  literal: bool = False) -> tuple[str, list[Any]]:
    """The arrays strategy's statement planned at each call (``sql/score/score_one_level.sql``)
    and its bound lists (none if ``literal``: each list is then one constant written in
    the statement, for a statement that is part of another, a mixed model's): one level over the source for ``predict``, two for the outputs
    with a column per class (the classes' list, then the columns), so the input's columns
    are bound once or twice rather than at every step of the computation. A missing value
    is a NaN in the row's list, which makes the fast form NaN: only such rows are read
    again by the careful form. The Gaussian's expanded form is one inner product per class
    over the row and its squares (``joined``: the linear weights, then minus the squares').

    The text and lists are kept with the model's parameters (every write of this object,
    and every new version seen, drops them)."""
    compiled = model.parameters()
    cache = compiled.setdefault("one_level", {})
    key = (source_sql, output, tuple(keep), output_prefix, prediction,
           tuple(sorted((columns or {}).items())), literal)
    if key in cache:
        return cache[key]
    arrays = _parameters(model)
    values = arrays["values"]
    columns = columns or {}
    dialect = model.dialect
    bound = _BoundLists(dialect if literal else None)
    kind = "expanded" if arrays.get("expanded") else arrays["kind"]
    classes = []
    for i, (c, lists) in enumerate(zip(compiled["compiled"], _class_lists(model))):
        out = (None if output_prefix is None
               else dialect.ident(f"{output_prefix}{c['label_value']}"))
        classes.append(_ClassLists(bound, i, lists, {"label": c["label"], "output": out}))
    features = [{"column": columns.get(f["name"], dialect.ident(f["name"])),
                 "double": f["name"] not in columns and f["type"].upper() == "DOUBLE"}
                for f in model.meta["features"]]
    shared = {name: None if arrays[name] is None
              else bound.slot(name, values[arrays[name] - 1]) for name in ("shift", "names")}
    sql = model.engine.render(
        "score/score_one_level.sql",
        **model.template_context(
            source=source_sql,
            output=output,
            keep=bool(keep),
            features=features,
            classes=classes,
            kind=kind,
            missing=model.family.params.get("missing", "ignore"),
            names=shared["names"],
            shift=shared["shift"],
            binarize=binarize_threshold(model),
            prediction=dialect.ident(prediction),
        ),
    )
    while len(cache) >= ONE_LEVEL_CACHE:
        cache.pop(next(iter(cache)))
    cache[key] = (sql, bound.values)
    return cache[key]


def list_literal(dialect: Dialect, value: Any) -> str:
    """A bound value written as SQL: a number, a list of names, or a list of numbers as
    one string cast to ``DOUBLE[]`` (one constant to bind instead of one per number: a
    model of 1,000 features x 5 classes planned in a third of the time). ``repr`` gives
    the shortest digits that read back as the same double, and DuckDB reads them so."""
    if isinstance(value, list):
        if all(isinstance(v, float) for v in value):
            text = "[" + ", ".join(repr(v) for v in value) + "]"
            return f"CAST({dialect.string(text)} AS DOUBLE[])"
        return "[" + ", ".join(dialect.lit(v) for v in value) + "]"
    return dialect.lit(value)


def prepared_scores(model: ModelContext, source: Source, output: str, keep: list[str],
                    prediction: str = "prediction", relation: bool = True) -> Any:
    """The arrays strategy's result on a small in-memory ``source`` (from
    ``engine.in_memory``), by a statement the engine planned once for this model version,
    output and input schema and runs again on each new input (see
    :class:`sqlnb.engines.source.PreparedStatements`). Its parameters are written in it as literals:
    DuckDB folds them once, when it plans, instead of binding lists at every call.

    The key holds a token of the parameters this object has read, which every write and
    every change of version seen by :func:`refresh` replaces: a statement planned for
    other parameters is never run again. Returns a relation over the result, or if not
    ``relation`` the result itself (an Arrow table)."""
    compiled = model.parameters()
    token = compiled.setdefault("prepared_token", object())
    # the input's columns are put next to the result outside the statement (zero-copy),
    # which needs the result's rows in the input's order: DuckDB keeps it unless told not
    # to, and one vector of rows is always in order
    attach = bool(keep) and (source.obj.num_rows <= ONE_VECTOR or _keeps_order(model))
    passed = [] if attach else keep
    # Arrow counts each column's NULLs: an input without any is read without a coalesce
    # per feature (a NaN is still read as missing)
    nulls = any(column.null_count for column in source.obj.columns)
    # and an input without a missing value at all (no NULL, no NaN in a feature) by one
    # without the careful form: DuckDB 2.0.1 plans a prepared statement again at every
    # EXECUTE, and that form is half the statement
    missing = nulls or _holds_nan(source.obj)
    per_column = source.obj.num_rows > PER_COLUMN_MIN_ROWS
    key = (token, output, tuple(passed), prediction, nulls, missing, per_column)

    def statement(source_sql: str) -> str:
        return array_score_sql(model, source_sql, output, passed, OUTPUTS[output],
                               prediction=prediction, literal=True, nulls=nulls,
                               missing=missing, per_column=per_column)[0]

    return model.engine.run_prepared(key, source, statement, relation,
                                     attach=keep if attach else None)


def _holds_nan(table: Any) -> bool:
    """Whether a floating-point column of the pyarrow Table holds a NaN (any column: a
    column the model does not read only costs the look). The columns are looked at in
    one NumPy call (64 calls took ~0.4 ms for one row, a tenth of its scoring)."""
    import numpy as np
    import pyarrow.types as kinds

    floats = [column.to_numpy() for column in table.columns if kinds.is_floating(column.type)]
    return bool(floats) and bool(np.isnan(np.concatenate(floats)).any())


# Rows DuckDB processes as one vector (a chunk): within one, the order cannot change.
ONE_VECTOR = 2048


def _keeps_order(model: ModelContext) -> bool:
    """Whether the connection keeps the rows of a result in the input's order
    (``preserve_insertion_order``, on by default)."""
    rows = model.fetch("catalog/database.sql#insertion_order")
    return bool(rows) and str(rows[0][0]).lower() in ("true", "1")


def coerced_columns(model: ModelContext, src: Source, stacklevel: int = 4) -> dict[str, str]:
    """Categorical features whose source column has another numeric (or BOOLEAN) type
    than at fit, read as the model's type: categories are compared by value (1.0 is the
    category 1, 1 is TRUE). A value the model's type cannot hold exactly is an error."""
    families = model.families_
    coerced = [
        {"name": f["name"], "column": model.dialect.ident(f["name"]), "model_type": f["type"],
         "source_type": src.columns[f["name"]]}
        for f in model.meta["features"]
        if FAMILIES[families[f["name"]]].per_category
        and src.columns[f["name"]].upper() != f["type"].upper()
        and model.dialect.is_numeric(f["type"])
        and model.dialect.is_numeric(src.columns[f["name"]])
    ]
    if not coerced:
        return {}
    found = model.fetch("fit/coercion_checks.sql", source=src.sql, features=coerced)[0]
    for i, f in enumerate(coerced):
        n_inexact, example = found[2 * i], found[2 * i + 1]
        if n_inexact:
            raise InvalidDataError(
                f"categorical feature {f['name']!r} was {f['model_type']} at fit but is "
                f"{f['source_type']} here, and {n_inexact} value(s) (e.g. {example}) are "
                f"no {f['model_type']} category; convert the column before scoring"
            )
        warnings.warn(
            f"categorical feature {f['name']!r} was {f['model_type']} at fit but is "
            f"{f['source_type']} here: its values are compared as {f['model_type']} "
            "(1.0 as 1, 1 as TRUE; NaN is missing)",
            CoercedValuesWarning, stacklevel=stacklevel,
        )
    return {f["name"]: f"TRY_CAST({f['column']} AS {f['model_type']})" for f in coerced}


# ---------------------------------------------------------------------- in-process scoring
def in_process(model: ModelContext) -> dict[str, Any] | None:
    """The model's parameters as NumPy matrices, for scoring rows already in this process
    (the scikit-learn facade's arrays) without a SQL statement: for a few rows, planning
    one costs far more than the arithmetic. The same expressions as the compiled form's
    (``sql/families/*.sql``, ``term_of``), from the same numbers: the parameters read once
    per model version (:meth:`sqlnb.context.ModelContext.parameters`, which :func:`refresh` resets when
    another connection writes the model), so the statistics stay in the database.

    None when the model is one this form does not cover (groups, text, mixed columns,
    counts' log-gamma, a zero variance, categories that are not integers): the caller
    scores in SQL then."""
    compiled = model.parameters()
    if "in_process" not in compiled:
        compiled["in_process"] = _in_process(model, compiled)
    return compiled["in_process"]


def _in_process(model: ModelContext, compiled: dict[str, Any]) -> dict[str, Any] | None:
    import numpy as np

    if compiled.get("groups") or not model.one_column_part():
        return None
    classes = compiled["compiled"]
    if not classes:
        return None
    names = [t["name"] for t in classes[0]["terms"]]
    params = model.family.params
    found: dict[str, Any] = {
        "names": names,
        "labels": [c["label_value"] for c in classes],
        "constant": np.array([float(c["constant"]) for c in classes]),
    }
    kind = model.family.array_kind
    if kind == "distance":
        theta = np.array([[t["theta"] for t in c["terms"]] for c in classes], dtype=np.float64)
        var = np.array([[t["var"] for t in c["terms"]] for c in classes], dtype=np.float64)
        if not np.all(var > 0):
            return None
        found.update(kind=kind, theta=theta, half_precision=0.5 / var)
    elif kind == "linear":
        found.update(kind=kind, binarize=binarize_threshold(model),
                     coef=np.array([[t["coef"] for t in c["terms"]] for c in classes],
                                   dtype=np.float64))
    elif model.family.per_category and params.get("unseen") in ("error", "ignore", "smooth"):
        # one table per feature: a code's log-probability in each class (NaN: no category
        # of the model, which the SQL form answers)
        tables = []
        for f in range(len(names)):
            try:
                codes = {int(value) for c in classes for value, _ in c["terms"][f]["categories"]}
            except (TypeError, ValueError):
                return None
            if not codes or min(codes) < 0:
                return None
            table = np.full((len(classes), max(codes) + 1), np.nan)
            for i, c in enumerate(classes):
                term = c["terms"][f]
                for value, logp in term["categories"]:
                    table[i, int(value)] = logp
                if params["unseen"] != "error":  # a code another class saw
                    fill = 0.0 if params["unseen"] == "ignore" else term["unseen"]
                    table[i, np.isnan(table[i])] = fill
            tables.append(table)
        found.update(kind="categories", tables=tables)
    else:
        return None
    return found


def score_in_process(found: dict[str, Any], X: Any, output: str) -> Any:
    """``output`` (as :data:`OUTPUTS` names it) of the rows of ``X`` (a float or integer
    NumPy matrix whose columns are ``found["names"]``, no missing value) by the parameters
    of :func:`in_process`: a 1-D array of labels for ``predict``, else one column per class.
    None if a value is one this form does not score (a missing value, an unknown
    category): the SQL form answers for it (and names what is wrong)."""
    import numpy as np

    kind = found["kind"]
    if kind == "categories":
        codes = np.asarray(X)
        if codes.size and (codes.min() < 0 or np.any(codes > [len(t[0]) - 1 for t in found["tables"]])):
            return None
        jll = np.tile(found["constant"], (codes.shape[0], 1))
        for f, table in enumerate(found["tables"]):
            jll += table[:, codes[:, f].astype(np.int64)].T
    else:
        X = np.asarray(X, dtype=np.float64)
        if np.isnan(X).any():
            return None
        if kind == "distance":
            jll = found["constant"] - np.stack(
                [((X - theta) ** 2 * half).sum(axis=1)
                 for theta, half in zip(found["theta"], found["half_precision"])], axis=1)
        else:
            if found["binarize"] is not None:
                X = (X > found["binarize"]).astype(np.float64)
            jll = X @ found["coef"].T + found["constant"]
    if np.isnan(jll).any():
        return None
    if output == "predict":
        # the first of the largest, as the SQL form's list_position(list_max(...))
        return np.asarray(found["labels"])[np.argmax(jll, axis=1)]
    if output == "joint":
        return jll
    top = jll.max(axis=1, keepdims=True)
    log_proba = jll - (top + np.log(np.exp(jll - top).sum(axis=1, keepdims=True)))
    return log_proba if output == "log_proba" else np.exp(log_proba)
