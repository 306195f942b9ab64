"""Poisson naive Bayes: a count per class and feature with a Poisson law
(``sql/families/poisson.sql``)."""

from __future__ import annotations

from typing import Any, ClassVar

from .counts import DISCRETE_DEFAULTS, Discrete


class Poisson(Discrete):
    """Counts with a Poisson distribution per class and feature.

    The rate is smoothed like the other count families:
    rate_cf = (sum_cf + alpha) / (weight_cf + alpha), the posterior mean under a
    Gamma(alpha, alpha) prior (alpha pseudo-rows with a count of one).
    """

    name = "poisson"
    described_by = ("bars", "rate", "Poisson rate")
    defaults: ClassVar[dict[str, Any]] = dict(DISCRETE_DEFAULTS)
    has_batch_checks = True
    vector_alpha = True
    scoring_parameters = ("coef", "rate")
    array_kind = "counts"
