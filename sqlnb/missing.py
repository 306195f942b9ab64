"""Missing values: rows without a target, and NaN in floating-point columns.

NaN in floating-point columns is a missing value, like NULL, at a price paid only when
there is a NaN.

Turning NaN into NULL costs a CASE per value (DuckDB folds ``isnan``/``nullif`` away on
Parquet columns whose statistics leave NaN out, so the test is spelt with ``isfinite``
and ``isinf``, which it cannot fold). For the families whose sums and terms turn a NaN
into NaN (Gaussian, multinomial, complement, Poisson) the work is done only when needed:

* fit runs the batch query on the raw values, looks for a non-finite sum, and only then
  runs it again with the NaN test on the floating-point columns;
* scoring computes each class's log-likelihood on the raw values and recomputes it with
  the NaN test only for the rows where it is not finite.

Bernoulli (``NaN > threshold`` is true in DuckDB) and categorical (``'nan'`` would be a
category) columns always get the test. A feature dict's ``guard`` flag tells the
``num`` macro of ``sql/families/common.sql`` to apply it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .engines.dialects import Dialect
from .errors import SkippedRowsWarning
from .families import FAMILIES


def set_guards(features: list[dict[str, Any]], family_of: Callable[[dict], str],
               cautious: bool, dialect: Dialect) -> None:
    """Flag the floating-point features whose values get the NaN test."""
    for f in features:
        f["guard"] = (dialect.kind(f["type"]) == "float"
                      and (cautious or not FAMILIES[family_of(f)].propagates_nan))


def scan_batch(run_batch: Callable[[], Any], fetch: Callable[..., list[tuple]],
               features: list[dict[str, Any]], family_of: Callable[[dict], str],
               dialect: Dialect,
               non_finite: Callable[[list[dict[str, Any]]], None] | None = None) -> None:
    """Run the batch query; run it again with NaN tests if a raw sum came out non-finite.

    A sum still non-finite then comes from an infinite value or from values too large to
    square: ``non_finite(features)`` is told which features (it refuses them, saying why)."""
    set_guards(features, family_of, cautious=False, dialect=dialect)
    run_batch()
    checked = [f for f in features if dialect.kind(f["type"]) == "float" and not f["guard"]]
    checks = [{"name": f["name"], "column": f["alias"] + FAMILIES[family_of(f)].sum_suffix}
              for f in checked]
    if checks and fetch("fit/batch_nan.sql", checks=checks):
        set_guards(features, family_of, cautious=True, dialect=dialect)
        run_batch()
        if non_finite is not None:
            still = {row[0] for row in fetch("fit/batch_nan.sql", checks=checks)}
            if still:
                non_finite([f for f in checked if f["name"] in still])


def non_finite_problems(features: list[dict[str, Any]], row: tuple,
                        family_of: Callable[[dict], str]) -> list[tuple[str, str]]:
    """The (feature, problem) rows of features whose sums stay non-finite with NaN read as
    missing, from ``fit/non_finite.sql``'s row (per feature: its number of infinite values and
    its largest finite magnitude). Features of other families than Gaussian without an
    infinite value are left to their family's own checks."""
    problems = []
    for f, infinite, largest in zip(features, row[0::2], row[1::2]):
        if infinite:
            problem = (f"has {infinite} infinite value(s) (+Inf or -Inf), which no "
                       "distribution can fit (NULL and NaN are read as missing, an infinity "
                       "is not): replace them with finite numbers, or with NULL to leave "
                       "them out")
            problems.append((f["name"], problem))
        elif FAMILIES[family_of(f)].shifted:
            problem = ("has values too large to square in double precision (the largest "
                       f"magnitude is {largest:.3g}; squares overflow above about 1.3e154): "
                       "rescale the column, e.g. divide it by a power of ten")
            problems.append((f["name"], problem))
    return problems


def _plain_terms(terms: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """The terms (copied where changed: a categorical term's lists are shared, not copied)
    without the NaN tests that can be left to a fallback, and whether any was left out."""
    plain, changed = [], False
    for term in terms:
        family = FAMILIES.get(term.get("family", ""))
        if term.get("guard") and family is not None and family.propagates_nan:
            term = {**term, "guard": False}
            changed = True
        plain.append(term)
    return plain, changed


def plain_classes(classes: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """The classes' scoring terms without the NaN tests that can be left to a fallback,
    and whether any test was left out (then score.sql recomputes non-finite rows)."""
    plain, changed = [], False
    for c in classes:
        terms, any_plain = _plain_terms(c["terms"])
        c = {**c, "terms": terms}
        changed |= any_plain
        if c.get("parts"):
            parts = []
            for part in c["parts"]:
                part_terms, any_plain = _plain_terms(part["c"]["terms"])
                changed |= any_plain
                parts.append({**part, "c": {**part["c"], "terms": part_terms}})
            c["parts"] = parts
            c["chunks"] = [c]
        elif "chunks" in c:
            size = max(len(chunk["terms"]) for chunk in c["chunks"]) or 1
            c["chunks"] = [{**chunk, "terms": terms[i * size:(i + 1) * size]}
                           for i, chunk in enumerate(c["chunks"])]
        plain.append(c)
    return plain, changed


def report_skipped(target: str, n_skipped: int) -> int:
    """Warn about rows whose target is NULL (fit leaves them out); return their number."""
    if n_skipped:
        warnings.warn(
            f"{n_skipped} row(s) with a NULL target {target!r} were skipped",
            SkippedRowsWarning,
            stacklevel=3,
        )
    return int(n_skipped)
