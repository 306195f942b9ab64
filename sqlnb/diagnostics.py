"""Small summaries of models and predictions, computed by SQL aggregates, for plots.

Nothing here brings rows into Python: a reliability curve is a GROUP BY over the scored
rows (one row per bin comes back), and a model's priors and per-class distributions are
read from its parameter views (one row per class, or per class and category).
:mod:`sqlnb.plot` draws them.

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> rel = con.sql("SELECT * FROM (VALUES ('a', 0.9, 0.1), ('b', 0.3, 0.7), ('b', 0.8, 0.2))"
...               " AS t(y, pa, pb)")
>>> curve = sqlnb.diagnostics.reliability(con, rel, "y", {"a": "pa", "b": "pb"}, bins=2)
>>> [(b["bin"], b["n"], b["observed"]) for b in curve["bins"]]
[(0, 2, 0.5), (1, 1, 1.0)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .engines import engine_for
from .errors import InvalidParameterError, UnknownColumnError
from .families import FAMILIES

if TYPE_CHECKING:  # pragma: no cover
    from .engines.duckdb import Connection
    from .model import NaiveBayes


def reliability(con: Connection, predictions: Any, target: str,
                proba: dict[Any, str], *, bins: int = 10) -> dict[str, Any]:
    """Predicted probability against observed frequency, in ``bins`` bins of equal width.

    ``proba`` maps each class label to its probability column in ``predictions``. With two
    classes the curve is the second (positive) class's, as scikit-learn's
    ``calibration_curve``; with more, it is the predicted class's probability against how
    often that prediction is right. Returns ``kind`` (``"binary"`` or ``"top-label"``),
    ``positive`` (the positive label or None), ``n_bins`` and ``bins``: the non-empty bins,
    each a dict ``bin``, ``lower``, ``upper``, ``n``, ``mean_predicted``, ``observed``.
    """
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise InvalidParameterError(f"bins must be a positive integer, got {bins!r}")
    if len(proba) < 2:
        raise InvalidParameterError("a reliability curve needs the probabilities of 2+ classes")
    engine = engine_for(con)
    dialect = engine.dialect
    src = engine.source(predictions)
    try:
        for column in [target, *proba.values()]:
            if column not in src.columns:
                raise UnknownColumnError(f"column {column!r} is not in the predictions")
        probas = [{"label": dialect.lit(label), "column": dialect.ident(column)}
                  for label, column in proba.items()]
        positive = probas[1] if len(probas) == 2 else None
        rows = engine.fetch(engine.render("reports/reliability.sql", relation=src.sql,
                                          target=dialect.ident(target), probas=probas,
                                          positive=positive, bins=bins))
    finally:
        engine.release(src)
    return {
        "kind": "binary" if positive is not None else "top-label",
        "positive": list(proba)[1] if positive is not None else None,
        "n_bins": bins,
        "bins": [{"bin": b, "lower": b / bins, "upper": (b + 1) / bins, "n": n,
                  "mean_predicted": mean, "observed": observed}
                 for b, n, mean, observed in rows],
    }


def model_reliability(model: NaiveBayes, source: Any, target: str | None = None, *,
                      bins: int = 10) -> dict[str, Any]:
    """:func:`reliability` of ``model``'s probabilities on ``source`` (one scan)."""
    target = model.target if target is None else target
    proba = {label: f"proba_{label}" for label in model.classes_}
    return reliability(model.engine, model.predict_proba(source), target, proba, bins=bins)


def class_priors(model: NaiveBayes) -> list[dict[str, Any]]:
    """Each class's prior probability, training rows and weight, classes in sorted order."""
    rows = model.engine.fetch(model.engine.render(
        "reports/class_priors.sql", model=model.name,
        class_params=model.engine.table(f"{model.name}_class_params")))
    return [dict(zip(("class", "prior", "n", "weight"), row)) for row in rows]


def feature_distribution(model: NaiveBayes, feature: str) -> dict[str, Any]:
    """The fitted distribution of ``feature`` in each class, from the parameter views.

    Returns ``feature``, ``family``, ``rows``, a list of dicts with ``class`` and the
    family's parameters: Gaussian ``theta`` and ``var``; categorical ``category`` and
    ``probability``; Bernoulli ``probability`` (of a non-zero value); Poisson ``rate``;
    multinomial ``probability`` (the feature's share of the class's counts); complement
    ``weight``; and how to draw them (the family's ``described_by``): ``shape``
    (``"density"``, ``"categories"`` or ``"bars"``), ``value`` (the column a bar shows)
    and ``label`` (its axis label).
    """
    families = model.families_
    if feature not in families:
        raise UnknownColumnError(
            f"model {model.name!r} has no feature {feature!r} (features: "
            f"{', '.join(families)})"
        )
    family = families[feature]
    family_class = FAMILIES.get(family)
    described_by = family_class.described_by if family_class is not None else None
    if described_by is None:
        raise InvalidParameterError(f"cannot describe a feature of family {family!r}")
    shape, value, label = described_by
    keys, found = model.engine.fetch_with_names(model.engine.render(
        "reports/feature_distribution.sql", model=model.name, feature=feature, shape=shape,
        value=value, params=model.engine.table(model.context.feature_params_name(feature)),
        class_params=model.engine.table(f"{model.name}_class_params")))
    rows = [dict(zip(keys, row)) for row in found]
    if not rows:  # a text model's parameters are per term, not per column
        raise UnknownColumnError(f"model {model.name!r} has no parameters for {feature!r}")
    return {"feature": feature, "family": family, "rows": rows, "shape": shape,
            "value": value, "label": label}
