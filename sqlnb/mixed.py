"""Mixed-type tables: one distribution per column (``family="auto"``).

A mixed model is made of *parts*, one per family present (Gaussian, Bernoulli,
categorical, multinomial, Poisson). Each part keeps its family's statistics in its own
table ``<model>_<family>_stats`` and derives its parameters in the view
``<model>_<family>_params``, with exactly the SQL of the single-family model (the family
templates are reused as they are). The class table, the features table and the metadata
are shared, and scoring adds the parts' log-likelihood terms into one expression per
class::

    log P(c, x) = log prior_c + sum over parts k of (log P_k(x_k, c) - log prior_c)

which is the product of the per-family models, renormalised.

The type -> family rule (``family_for_type``):

============================================  ==========================================
DuckDB type                                   family
============================================  ==========================================
FLOAT, DOUBLE, DECIMAL                        gaussian
BOOLEAN                                       bernoulli
VARCHAR, ENUM                                 categorical, on the raw values
TINYINT ... HUGEINT, UTINYINT ... UHUGEINT    the ``integers`` hyperparameter (default
                                              gaussian; or poisson, categorical)
anything else (DATE, TIMESTAMP, …)            an error: cast it, or name its family
============================================  ==========================================

``families={"col": "poisson", ...}`` overrides the rule for any column. Every column
mapped to ``"multinomial"`` belongs to one multinomial block (its probabilities are
normalised over the block's columns).
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any, ClassVar

from . import compiler, scoring
from .engines.dialects import DUCKDB, Dialect
from .errors import (
    InvalidDataError,
    InvalidParameterError,
    UnknownColumnError,
)
from .families import (
    FAMILIES,
    MAX_CATEGORIES,
    MISSING_MODES,
    PART_FAMILIES,
    UNSEEN_MODES,
    Family,
    as_float_list,
    check_coding,
    make_family,
)
from .macros import create_macros
from .pipeline import pipeline_of, refuse
from .scoring import OUTPUTS
from .validation import ARRAY_LIKE, BOOLEAN, Interval, Options

if TYPE_CHECKING:  # pragma: no cover
    from .context import ModelContext

INTEGER_CHOICES = ("gaussian", "poisson", "categorical")

# The family of each kind of column type (see ``Dialect.kind``); integers are a setting.
KIND_FAMILIES = {"float": "gaussian", "decimal": "gaussian", "bool": "bernoulli",
                 "text": "categorical", "enum": "categorical"}


def family_for_type(sql_type: str, integers: str = "gaussian",
                    dialect: Dialect = DUCKDB) -> str | None:
    """The family ``family="auto"`` gives a column of type ``sql_type`` (or None)."""
    kind = dialect.kind(sql_type)
    if kind == "integer":
        return integers
    return KIND_FAMILIES.get(kind)


class Mixed(Family):
    """A model with one family per column, chosen from the column's type or given.

    Hyperparameters: ``families`` (column -> family overrides), ``integers`` (the family
    of integer columns), the parts' own ``var_smoothing``, ``alpha``, ``force_alpha``,
    ``binarize``, ``min_categories``, ``max_categories``, ``value_columns``, ``unseen``, the
    shared ``missing``, and the class
    prior's ``fit_prior`` and ``class_prior``.
    """

    name = "auto"
    composite = True
    layout_params = ("families", "integers", "max_categories", "value_columns")
    # what shapes the parts' statistics: an update or merge must keep them
    statistics_params = ("families", "integers", "binarize", "value_columns")
    numeric = False
    defaults: ClassVar[dict[str, Any]] = {
        "families": None,
        "integers": "gaussian",
        "var_smoothing": 1e-9,
        "alpha": 1.0,
        "force_alpha": True,
        "binarize": 0.0,
        "min_categories": None,
        "max_categories": MAX_CATEGORIES,
        "value_columns": None,
        "unseen": "smooth",
        "missing": "ignore",
        "fit_prior": True,
        "class_prior": None,
    }
    constraints: ClassVar[dict[str, list[Any]]] = {
        "integers": [Options(INTEGER_CHOICES)],
        "var_smoothing": [Interval(float, 0, None)],
        "alpha": [Interval(float, 0, None)],
        "force_alpha": [BOOLEAN],
        "fit_prior": [BOOLEAN],
        "class_prior": [ARRAY_LIKE, None],
        "binarize": [None, Interval(float, 0, None)],
        "min_categories": [None, ARRAY_LIKE, Interval(int, 1, None)],
        "max_categories": [Interval(int, 1, None)],
        "value_columns": [None, ARRAY_LIKE],
        "unseen": [Options(UNSEEN_MODES)],
        "missing": [Options(MISSING_MODES)],
    }
    assigned: dict[str, str]

    @property
    def template(self) -> str:
        return "families/mixed.sql"

    def validate(self) -> None:
        self.assigned = {}
        families = self.params["families"]
        if families is not None:
            if not isinstance(families, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in families.items()
            ):
                raise InvalidParameterError(
                    "families must map column names to family names, e.g. {'visits': 'poisson'}"
                )
            for column, family in families.items():
                if family not in PART_FAMILIES:
                    raise InvalidParameterError(
                        f"column {column!r}: family {family!r} cannot be part of a mixed model; "
                        f"choose one of {', '.join(PART_FAMILIES)}"
                    )
        if self.params["integers"] not in INTEGER_CHOICES:
            raise InvalidParameterError(
                f"integers must be one of {', '.join(INTEGER_CHOICES)}, "
                f"got {self.params['integers']!r}"
            )
        alpha = self.params["alpha"]
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
            raise InvalidParameterError(
                f"a mixed model takes a single number as alpha, got {alpha!r}"
            )
        if self.params["unseen"] not in UNSEEN_MODES:
            raise InvalidParameterError("unseen must be 'smooth', 'ignore' or 'error'")
        if self.params["missing"] not in MISSING_MODES:
            raise InvalidParameterError("missing must be 'ignore' or 'error'")
        prior = self.params["class_prior"]
        if prior is not None and any(v < 0 for v in as_float_list(prior, "class_prior")):
            raise InvalidParameterError("class_prior must be non-negative")
        for family in PART_FAMILIES:  # each part's own checks (var_smoothing, binarize…)
            self.part_family(family)

    def part_family(self, family: str) -> Family:
        """The single-family object a part uses, with its share of the hyperparameters."""
        return make_family(family, **{k: self.params[k] for k in FAMILIES[family].part_params})

    def parts_of(self, features: list[dict[str, Any]]
                 ) -> list[tuple[str | None, Family, list[dict[str, Any]]]]:
        """One part per family present, in ``PART_FAMILIES`` order, named after it."""
        return [(name, self.part_family(name), [f for f in features if f.get("family") == name])
                for name in PART_FAMILIES if any(f.get("family") == name for f in features)]

    def prior_list(self) -> list[float] | None:
        prior = self.params["class_prior"]
        return None if prior is None else as_float_list(prior, "class_prior")

    def fit_prior(self) -> bool:
        return bool(self.params["fit_prior"])

    def family_of(self, name: str, sql_type: str, dialect: Dialect = DUCKDB, *,
                  as_fitted: bool = True) -> str:
        """The family of column ``name``: as fitted (unless not ``as_fitted``), as
        overridden, or from its type."""
        if as_fitted and name in self.assigned:
            return self.assigned[name]
        overrides = self.params["families"] or {}
        if name in overrides:
            return overrides[name]
        family = family_for_type(sql_type, self.params["integers"], dialect)
        if family is None:
            raise InvalidDataError(
                f"feature {name!r} has type {sql_type}, which family='auto' does not map to a "
                f"family: cast the column, or name its family with families={{{name!r}: ...}}"
            )
        return family

    def check_feature_type(self, name: str, sql_type: str, dialect: Dialect) -> None:
        family = self.part_family(self.family_of(name, sql_type, dialect))
        family.check_feature_type(name, sql_type, dialect)

    def assign(self, types: dict[str, str], dialect: Dialect = DUCKDB) -> dict[str, str]:
        """Each feature's family, for a fit on columns of these types."""
        overrides = self.params["families"] or {}
        unknown = [c for c in overrides if c not in types]
        if unknown:
            raise UnknownColumnError(f"families names column(s) that are not features: {unknown}")
        self.assigned = {}
        return {name: self.family_of(name, sql_type, dialect) for name, sql_type in types.items()}

    def resume(self, stored: list[dict[str, Any]]) -> None:
        """The columns' families are the first fit's."""
        self.assigned = {f["name"]: f["family"] for f in stored}

    def check_batch_columns(self, model_name: str, stored: list[dict[str, Any]],
                            batch: list[dict[str, Any]], dialect: Dialect) -> None:
        """A batch of an update must give every column the family the first fit gave it
        (its type may not move it to another part) and, for a categorical column, the same
        coding."""
        for old, new in zip(stored, batch):
            now = self.family_of(new["name"], new["type"], dialect, as_fitted=False)
            if now != old["family"]:
                raise InvalidDataError(
                    f"column {old['name']!r} of model {model_name!r} is {old['type']} "
                    f"({old['family']}) but {new['type']} in the batch, which family='auto' "
                    f"would model as {now}: cast it back to {old['type']}"
                )
            if FAMILIES[now].per_category:
                check_coding(model_name, old, new, dialect)


FAMILIES[Mixed.name] = Mixed


# ---------------------------------------------------------------------- parts
def _parts(model: ModelContext, features: list[dict[str, Any]],
           family_of: dict[str, str]) -> list[dict[str, Any]]:
    """One part per family present, in PART_FAMILIES order, with its own relations."""
    parts = []
    for family in PART_FAMILIES:
        members = [f for f in features if family_of[f["name"]] == family]
        if not members:
            continue
        sub = model.family.part_family(family)
        t = dict(model.tables)
        t["feature_stats"] = model.engine.table(f"{model.name}_{family}_stats")
        t["feature_params"] = model.engine.table(f"{model.name}_{family}_params")
        if sub.long_batch:  # the other parts share one batch table (one scan)
            t["batch"] = model.engine.table(f"__sqlnb_batch_{model.name}_{family}")
        parts.append({"family": family, "sub": sub, "features": members, "t": t})
    return parts


def parts(model: ModelContext) -> list[dict[str, Any]]:
    """A fitted mixed model's parts: per family present its name (``family``), family
    (``sub``), features and relations (``t``)."""
    features = model.meta["features"]
    return _parts(model, features, {f["name"]: f["family"] for f in features})


def _context(model: ModelContext, part: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """The template context of one part: the model's, with the part's family and tables."""
    return pipeline_of(model).context(family=part["sub"], **{"t": part["t"], **extra})


def _run(model: ModelContext, part: dict[str, Any], template: str, **extra: Any) -> None:
    model.engine.execute(model.engine.render(template, **_context(model, part, **extra)))


def _fetch(model: ModelContext, part: dict[str, Any], template: str, **extra: Any) -> list[tuple]:
    return model.engine.fetch(model.engine.render(template, **_context(model, part, **extra)))


# ---------------------------------------------------------------------- writes
# A write (fit, partial_fit, forget, merge) runs sqlnb.parts' one flow over the parts.
def batch_parts(model: ModelContext, features: list[dict[str, Any]],
                family_of: dict[str, str]) -> list[dict[str, Any]]:
    """The parts of a write whose features (a fit's or an update's input specification)
    get their family, per-feature options and categorical coding."""
    parts = _parts(model, features, family_of)
    for part in parts:
        options = part["sub"].feature_options(len(part["features"]))
        for f, extra in zip(part["features"], options):
            f.update(extra)
            f["family"] = part["family"]
            if part["sub"].per_category:
                f["coding"] = part["sub"].coding(f["name"], f["type"], model.dialect)
    return parts


def parts_of(model: ModelContext, features: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The parts of a stored mixed model, from its recorded features (each names its family)."""
    return _parts(model, features, {f["name"]: f["family"] for f in features})


def create_tables(model: ModelContext, parts: list[dict[str, Any]], class_type: str) -> None:
    """The (empty) tables of a mixed model: the shared ones with the first part's statistics
    table, then each other part's statistics table."""
    _run(model, parts[0], "fit/create_model.sql", class_type=class_type)
    for part in parts[1:]:
        _run(model, part, "fit/part_stats_table.sql", class_type=class_type)


def finish_mixed(model: ModelContext, parts: list[dict[str, Any]],
                 features: list[dict[str, Any]], target: str, target_type: str,
                 weight: str | None, kind: dict[str, Any] | None = None,
                 known_classes: int | None = None) -> None:
    """After the statistics are in (a fit's merge, an import's copy): class checks, the parts'
    parameter views, sanity checks, the metadata row and the scoring macros.
    ``known_classes``: an update's number of classes before its batch, when its
    hyperparameters are unchanged; if the batch added or removed no class, the parameter
    views (which read the statistics) are current and stay as they are."""
    family: Mixed = model.family
    flow = pipeline_of(model)
    first = parts[0]
    problems: list[tuple] = []
    n_classes = flow.check_classes(max(part["sub"].min_classes for part in parts))
    family.check_priors(n_classes)
    if n_classes != known_classes:
        _run(model, first, "score/params.sql", priors=family.prior_list(),
             fit_prior=family.fit_prior())
        for part in parts[1:]:
            _run(model, part, "score/part_params.sql")
    for part in parts:
        problems += _fetch(model, part, "fit/checks.sql", features=part["features"])
    refuse(problems)
    flow.write_meta(features, target, target_type, weight,
                    {"input": "columns", "parts": [p["family"] for p in parts], "groups": [],
                     **(kind or {})},
                    feature_keys=("name", "type", "family"))
    family.assigned = {f["name"]: f["family"] for f in features}
    if flow.sql_macros:  # the macros join the fit's transaction
        model.invalidate()
        create_macros(model)


def wide_columns(parts: list[dict[str, Any]], spec: dict[str, Any]) -> list[dict[str, Any]]:
    """What mixed_batch.sql needs of each column-wise part, Gaussian last (its columns
    end without a comma). The others' columns are qualified with the source's alias."""
    columns = []
    for part in parts:
        if part["sub"].shifted:  # its columns qualify themselves with __src
            columns.append({"template": part["sub"].template, "features": part["features"],
                            "weight": spec["weight_sql"], "options": {}})
        else:
            qualified = [{**f, "column": "__src." + f["column"]} for f in part["features"]]
            weight = None if spec["weight_sql"] is None else "__src." + spec["weight_sql"]
            columns.insert(0, {"template": part["sub"].template, "features": qualified,
                               "weight": weight, "options": part["sub"].batch_options()})
    return columns


# ---------------------------------------------------------------------- scoring
def _terms(model: ModelContext, part: dict[str, Any],
           types: dict[str, str]) -> dict[int, dict[str, dict[str, Any]]]:
    """Each class's scoring terms of one part, read from the part's parameter view."""
    template, extra = compiler.terms_read(model, part["sub"])
    names, rows = model.engine.fetch_with_names(
        model.engine.render(template, **_context(model, part, **extra)))
    return part["sub"].read_terms(rows, names[3:], lambda feature: {
        "column": model.dialect.ident(feature), "family": part["family"],
        "guard": model.dialect.kind(types[feature]) == "float",
        **compiler.where_kept(part["t"], feature, part["sub"])})


def compile_mixed(model: ModelContext) -> dict[str, Any]:
    """The per-class scoring expressions of a mixed model: the parts' terms, one sum."""
    family: Mixed = model.family
    family.assigned = {f["name"]: f["family"] for f in model.meta["features"]}
    return compiler.remembered(model, _compile_mixed)


def _compile_mixed(model: ModelContext) -> dict[str, Any]:
    meta = model.meta
    family: Mixed = model.family
    family_of = {f["name"]: f["family"] for f in meta["features"]}
    types = {f["name"]: f["type"] for f in meta["features"]}
    order = {f["name"]: i for i, f in enumerate(meta["features"])}
    family.assigned = dict(family_of)
    parts = _parts(model, meta["features"], family_of)
    classes = pipeline_of(model).fetch("catalog/read_params.sql#classes")
    constants: dict[int, float] = {index: 0.0 for index, _, _ in classes}
    part_terms = []
    for part in parts:
        part["constants"] = dict(_fetch(model, part, "catalog/read_params.sql#constants"))
        for class_index, constant in part["constants"].items():
            constants[class_index] += constant
        part_terms.append(_terms(model, part, types))
    compiled = []
    for class_index, label, log_prior in classes:
        # each part's constant carries the log prior once; keep one of them (a class of
        # prior 0 stays at -inf: -inf less -inf would be NaN)
        constant = constants[class_index] - (len(parts) - 1) * log_prior \
            if log_prior != -math.inf else -math.inf
        compiled.append({
            "index": class_index,
            "label_value": label,
            "label": model.dialect.lit(label, meta["target_type"]),
            "constant": constant,
            "terms": [],
            "parts": [
                {
                    "template": part["sub"].template,
                    "p": part["sub"].params,
                    "c": {"constant": 0.0, "terms": sorted(
                        terms[class_index].values(), key=lambda t: order[t["name"]])},
                }
                for part, terms in zip(parts, part_terms)
            ],
            "jll": model.dialect.ident(f"__sqlnb_jll_{class_index}"),
        })
        compiled[-1]["chunks"] = [compiled[-1]]  # score.sql sums chunks; parts are one
    return {"classes": classes, "compiled": compiled, "parts": parts}


# ---------------------------------------------------------------------- predict*
class _PartView:
    """One part of a mixed model seen as a model of its family alone (its features, its
    classes' constants and terms), for the arrays strategy's statement
    (:func:`sqlnb.scoring.one_level_sql`), which reads only these attributes."""

    def __init__(self, model: ModelContext, part: dict[str, Any], index: int) -> None:
        self._model = model
        self.family = part["sub"]
        self.dialect = model.dialect
        self.engine = model.engine
        self.meta = {"features": part["features"]}
        self._compiled = part.setdefault("view", {"compiled": [
            {"index": c["index"], "label": c["label"], "label_value": c["label_value"],
             "constant": part["constants"][c["index"]],
             "terms": c["parts"][index]["c"]["terms"],
             "jll": c["jll"]}
            for c in model.parameters()["compiled"]]})

    def parameters(self) -> dict[str, Any]:
        return self._compiled

    def template_context(self, **extra: Any) -> dict[str, Any]:
        """The template context of the part (its family's)."""
        return self._model.template_context(family=self.family, **extra)


def arrays_parts(model: ModelContext) -> list[int]:
    """The parts of a mixed model that ``predict*`` scores with the arrays (their family
    has an ``array_kind`` and they are wide: more than ``COMPILED_MAX_TERMS`` features x
    classes), each in a level of its own; the others stay inline in one compiled level."""
    compiled = model.parameters()
    if (model.scoring == "compiled" or compiled.get("groups")
            or not model.engine.capabilities.list_lambdas):
        return []
    n_classes = len(compiled["classes"])
    return [i for i, part in enumerate(compiled["parts"])
            if part["sub"].array_kind is not None
            and len(part["features"]) * n_classes > scoring.COMPILED_MAX_TERMS]


def score_sql(model: ModelContext, source_sql: str, output: str, keep: list[str],
              prediction: str = "prediction", columns: dict[str, str] | None = None) -> str:
    """``predict*``'s statement for a mixed model: each wide part of an arrays family in a
    level of its own, as the arrays strategy scores that family alone (one list function
    per class rather than a literal per feature and class), the other parts in one
    compiled level; then the sum of the parts' joint log-likelihoods (each part's carries
    the log prior once: the compiled level's constant takes back the others') and the
    outputs (``score/score_parts.sql``). Without such a part, the one compiled statement."""
    arrays = arrays_parts(model)
    if not arrays:
        return compiler.score_sql(model, source_sql, output, keep, prediction=prediction,
                                  columns=columns)
    compiled = model.parameters()
    dialect = model.dialect
    inline = []
    for c in compiled["compiled"]:
        parts = [part for i, part in enumerate(c["parts"]) if i not in arrays]
        constant = c["constant"]
        if constant != -math.inf:
            constant -= math.fsum(compiled["parts"][i]["constants"][c["index"]] for i in arrays)
        inline.append({**c, "constant": constant, "parts": parts})
        inline[-1]["chunks"] = [inline[-1]]
    prefixes = {i: f"__sqlnb_part_{i}_" for i in arrays}
    sql, numbered = compiler.classes_score_sql(
        model, inline, source_sql, "joint", keep, "__sqlnb_inline_", columns=columns,
        keep_order=True)
    for i in arrays:
        view = _PartView(model, compiled["parts"][i], i)
        sql = scoring.one_level_sql(view, f"({sql}) AS __sqlnb_level_{i}", "joint", ["*"],
                                    prefixes[i], columns=columns, literal=True)[0]
    classes = []
    prefix = OUTPUTS[output]
    for c in compiled["compiled"]:
        names = [f"__sqlnb_inline_{c['label_value']}"] + [
            f"{prefixes[i]}{c['label_value']}" for i in arrays]
        classes.append({**c, "sum": [dialect.ident(name) for name in names],
                        "output": None if prefix is None
                        else dialect.ident(f"{prefix}{c['label_value']}")})
    return model.render(
        "score/score_parts.sql", source=sql, output=output,
        keep=[dialect.ident(k) for k in keep] + (["__sqlnb_order"] if numbered else []),
        classes=classes, prediction=dialect.ident(prediction),
        order="__sqlnb_order" if numbered else None)
