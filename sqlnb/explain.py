"""Why a prediction, and has the data moved: explanations and drift from a model's tables.

A naive Bayes prediction is a sum: a class's joint log-likelihood is its log prior plus one
term per feature. :func:`explain` lists those terms, one row per (input row, class,
feature), from the very SQL the family's ``jll`` macro sums (each family template's
``term_of``), so an explanation cannot disagree with ``predict``. A feature's
``log_likelihood`` is its term plus its share of the class constant (the template's
``share_of``: Gaussian's ``-0.5 log(2 pi var)``, Bernoulli's ``log(1 - p)``); the
``log_prior`` column is the class constant less those shares, so for every row and class::

    log_prior + sum over features of log_likelihood == predict_joint_log_proba

:func:`drift` compares one scan of new rows with the model's statistics, per feature
(``sql/reports/drift.sql``). See docs/explain.md.

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i % 2 * 10 + i AS DOUBLE) AS x "
...                 "FROM range(20) r(i)")
>>> model = sqlnb.NaiveBayes("demo", con=con).fit("t", "y")
>>> len(model.explain("t").fetchall())  # 20 rows x 2 classes x 1 feature
40
>>> model.explain("t", top=1).limit(1).fetchall()[0][:3]  # row 0: its top feature
(0, 1, 'x')
>>> [(row[0], row[2]) for row in model.drift("t").fetchall()]  # feature, method
[('x', 'gaussian_kl')]
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

from . import compiler, grouping, parts
from . import scoring as scoring_strategies
from .context import as_context
from .engines.source import Source
from .errors import InvalidParameterError, UnknownColumnError, UnsupportedError
from .pipeline import pipeline_of

if TYPE_CHECKING:  # pragma: no cover
    from .context import ModelContext


def explain(model: ModelContext, source: Any, top: int | None = None,
            row: int | None = None) -> Any:
    """Each feature's term of each class's joint log-likelihood, per row of ``source``: a
    lazy relation (row_number, class, feature, log_likelihood, log_prior). With ``top=k``,
    per row the ``k`` features that most favour the predicted class over the runner-up:
    (row_number, rank, feature, value, contribution, prediction, runner_up), where
    ``contribution`` is the feature's term in the predicted class less its term in the
    runner-up (with one class, its term in that class) and ``value`` the row's value as text.
    ``row``: only that input row (0-based), still numbered as in the whole input. A text
    model is explained per document, class and known term (``feature`` is the term); a
    per-group model by each row's group's parameters.
    """
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise InvalidParameterError(f"top must be a positive integer or None, got {top!r}")
    if row is not None and (isinstance(row, bool) or not isinstance(row, int) or row < 0):
        raise InvalidParameterError(f"row must be a row number (0 or more) or None, got {row!r}")
    _ = model.meta  # raises NotFittedError early
    scoring_strategies.refresh(model)  # another cursor may have refitted the model
    if model.input_kind == "text":
        return _explain_text(model, source, row, top)
    _refuse_unsupported(model, "explain" if top is None else "explain(top=k)")
    src = model.engine.source(source)
    try:
        columns = _checked_columns(model, src)
        sql = compiler.explain_sql(model, src.sql, columns=columns, top=top, row=row)
    except BaseException:
        model.engine.release(src)
        raise
    return model.engine.lazy(src, sql)


def _text_source(model: ModelContext, source: Any) -> tuple[dict[str, Any], Source]:
    """How a text model tokenises (its text ``column`` and analyzer settings ``a``, as its
    scoring reads them: :func:`sqlnb.text.compile_classes`) and ``source`` resolved, which
    must have the text column."""
    analyzer = model.parameters()["text"]
    src = model.engine.source(source)
    if analyzer["column"] not in src.columns:
        model.engine.release(src)
        raise UnknownColumnError(
            f"the source lacks the text column {analyzer['column']!r} that model "
            f"{model.name!r} reads")
    return analyzer, src


def _drift_text(model: ModelContext, source: Any) -> Any:
    """A text model's drift: one row for its text column, the PSI of the batch's token
    shares per vocabulary term against the fit's (``sql/text/drift_terms.sql``)."""
    scoring_strategies.refresh(model)
    analyzer, src = _text_source(model, source)
    sql = pipeline_of(model).render(
        "text/drift_terms.sql", source=src.sql, column=model.dialect.ident(analyzer["column"]),
        a=analyzer["a"], name=analyzer["column"], epsilon=PSI_EPSILON,
        top_categories=TOP_CATEGORIES,
        target_type=model.meta["target_type"])
    return model.engine.lazy(src, sql)


def _explain_text(model: ModelContext, source: Any, row: int | None, top: int | None) -> Any:
    """A text model's explanation: per document, class and known term, the term's part of
    the class's joint log-likelihood, or with ``top`` per document the known terms that most
    favour its prediction (``sql/text/explain_terms.sql``). A per-group text model explains
    each document by the model predict scores it with: its group's, the pooled one for a
    group no fit saw or a NULL group column."""
    analyzer, src = _text_source(model, source)
    compiled = model.parameters()
    groups = {}
    if compiled.get("text_groups"):
        missing = [name for name, _ in model.spec.groups if name not in src.columns]
        if missing:
            model.engine.release(src)
            raise UnknownColumnError(
                f"the source lacks the group column(s) {missing} that model {model.name!r} "
                "routes its rows by")
        groups = {"groups": compiled["text_groups"],
                  "group_columns": [model.dialect.ident(name) for name, _ in model.spec.groups]}
    sql = pipeline_of(model).render(
        "text/explain_terms.sql", source=src.sql, column=model.dialect.ident(analyzer["column"]),
        a=analyzer["a"], classes=compiled["compiled"], row=row, top=top,
        binarize=model.family.params.get("binarize"), **groups)
    return model.engine.lazy(src, sql)


def row_breakdown(model: Any, source: Any, row: int = 0) -> dict[str, Any]:
    """One input row's explanation, for a waterfall (:func:`sqlnb.plot.waterfall`): the
    predicted class and the runner-up, the difference of their log priors (``prior``), and
    per feature (largest contribution first) its name, value and contribution to the
    difference of their joint log-likelihoods (``total``). ``model``: a model or its
    context."""
    model = as_context(model)
    found = explain(model, source, top=len(model.features_), row=row).fetchall()
    if not found:
        raise InvalidParameterError(
            f"the source has no row {row} (rows are numbered from 0 in the source's order)")
    priors = {label: prior for _, label, _, _, prior in
              explain(model, source, row=row).fetchall()}
    prediction, runner_up = found[0][5], found[0][6]
    prior = priors[prediction] - (0.0 if runner_up is None else priors[runner_up])
    features = [(feature, value, contribution)
                for _, _, feature, value, contribution, _, _ in found]
    return {"row": row, "prediction": prediction, "runner_up": runner_up, "prior": prior,
            "features": features,
            "total": prior + math.fsum(c for _, _, c in features)}


def _refuse_unsupported(model: ModelContext, what: str) -> None:
    """Long-input models (and text models where ``what`` does not cover them) are not
    covered yet: say so."""
    if model.reads_terms:
        raise UnsupportedError(
            f"{what} is not available for long-input models, nor drift per class for text "
            "models, yet: fit a model on count columns (one per term), or call drift(source) "
            "for a text model's term shares"
        )


def _checked_columns(model: ModelContext, src: Source) -> dict[str, str]:
    """Refuse a source lacking a feature or of a type the family cannot read; the SQL that
    reads coerced categorical columns (see ``sqlnb.scoring.coerced_columns``)."""
    missing = [f for f in model.features_ if f not in src.columns]
    missing += grouping.missing_group_columns(model, src.columns)
    if missing:
        raise UnknownColumnError(
            f"the source lacks feature column(s) {missing} that model {model.name!r} uses"
        )
    for f in model.meta["features"]:
        model.family.check_feature_type(f["name"], src.columns[f["name"]], model.dialect)
    return scoring_strategies.coerced_columns(model, src)


# The floor of a share in PSI's logarithm: a bin empty on one side adds (b - m) ln(b / 1e-4)
# rather than infinity (a common choice; the PSI thresholds below assume something alike).
PSI_EPSILON = 1e-4
# The bins of equal probability under a Gaussian feature's normal law for its PSI, when
# asked for (drift(source, bins=PSI_BINS)): deciles, the convention the thresholds assume.
PSI_BINS = 10
# The categories listed in drift's batch_top and model_top.
TOP_CATEGORIES = 3


def drift(model: ModelContext, source: Any, by_class: bool = False,
          bins: int | None = None) -> Any:
    """One row per feature comparing ``source``'s values with the model's statistics
    (pooled over the classes), in one scan of ``source``: a lazy relation (feature, class,
    method, drift, psi, batch_count, batch_mean, batch_spread, model_count, model_mean,
    model_spread, batch_top, model_top), in the model's feature order. With ``by_class``
    (the source has the model's target column), after each feature's pooled row (``class``
    NULL) one row per class of the batch the model knows, that class's rows against the
    model's statistics of that class.

    ``drift`` is non-negative and 0 when the distributions match (NULL when the batch has
    no value of the feature); ``method`` says how it was measured: ``gaussian_kl``
    (Gaussian features), ``poisson_kl`` (counts: multinomial, complement, Poisson) or
    ``psi`` (categorical features over the model's categories, Bernoulli's values above
    ``binarize``). A per-group model is compared with its pooled statistics (every group's
    rows). ``psi`` is the population stability index: the same as ``drift`` for the
    ``psi`` method, and for Gaussian features, when ``bins`` is given (e.g.
    ``PSI_BINS``), over ``bins`` bins of equal probability under the model's normal law
    (NULL otherwise, and for counts: counting the bins costs more than the rest of the
    scan). See docs/explain.md for the thresholds practitioners use.
    """
    if model.input_kind == "text" and not by_class:
        return _drift_text(model, source)
    if bins is not None and (isinstance(bins, bool) or not isinstance(bins, int) or bins < 2):
        raise InvalidParameterError(
            f"bins must be an integer of 2 or more (or None: no PSI for Gaussian features), "
            f"got {bins!r}")
    _ = model.meta  # raises NotFittedError early
    _refuse_unsupported(model, "drift")  # a per-group model: its pooled statistics
    scoring_strategies.refresh(model)
    src = model.engine.source(source)
    try:
        columns = _checked_columns(model, src)
        target = None
        if by_class:
            if model.meta["target"] not in src.columns:
                raise UnknownColumnError(
                    f"drift(by_class=True) compares each class's rows: the source lacks the "
                    f"target column {model.meta['target']!r}; pass by_class=False for the "
                    "pooled comparison")
            target = model.dialect.ident(model.meta["target"])
        index = {name: i for i, name in enumerate(model.features_)}
        described = {f["name"]: f for f in model.meta["features"]}
        pieces = []
        for part in parts.stored_parts(model):
            family, names = part["sub"], [f["name"] for f in part["features"]]
            features = [{
                "index": index[name], "name": name, "alias": f"__sqlnb_f{index[name]}",
                "column": columns.get(name, model.dialect.ident(name)),
                "guard": model.dialect.kind(described[name]["type"]) == "float",
                "origin": float(described[name].get("origin") or 0.0),
            } for name in names]
            pieces.append({"t": part["t"], "method": family.drift_method,
                          "shape": family.statistics_shape, "p": family.params,
                          "features": features})
        quantiles = [NormalDist().inv_cdf(j / bins) for j in range(1, bins)] if bins else []
        # Categories are counted by a histogram per feature where the engine has DuckDB's
        # maps and lists (as its list lambdas), else by one grouping set per feature.
        sql = pipeline_of(model).render(
            "reports/drift.sql", source=src.sql, parts=pieces, target=target,
            quantiles=quantiles, epsilon=PSI_EPSILON, top_categories=TOP_CATEGORIES,
            category_sets=not model.engine.capabilities.list_lambdas)
    except BaseException:
        model.engine.release(src)
        raise
    return model.engine.lazy(src, sql)
