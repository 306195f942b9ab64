"""Multinomial naive Bayes: counts over the features (``sql/families/multinomial.sql``)."""

from __future__ import annotations

from typing import Any, ClassVar

from .counts import DISCRETE_DEFAULTS, Discrete


class Multinomial(Discrete):
    name = "multinomial"
    described_by = ("bars", "probability", "share of the class's counts")
    defaults: ClassVar[dict[str, Any]] = dict(DISCRETE_DEFAULTS)
    has_batch_checks = True
    sparse_input = True
    count_sums = True
    array_kind = "linear"
    sklearn_estimator = "MultinomialNB"
