"""Complement naive Bayes: weights from the other classes' counts
(``sql/families/complement.sql``)."""

from __future__ import annotations

from typing import Any, ClassVar

from ..validation import BOOLEAN
from .counts import DISCRETE_DEFAULTS, Discrete


class Complement(Discrete):
    name = "complement"
    described_by = ("bars", "weight", "complement weight")
    defaults: ClassVar[dict[str, Any]] = {**DISCRETE_DEFAULTS, "norm": False}
    constraints: ClassVar[dict[str, list[Any]]] = {**Discrete.constraints, "norm": [BOOLEAN]}
    has_batch_checks = True
    # one class is allowed, as in scikit-learn: its complement is empty (weights of alpha)
    sparse_input = True
    count_sums = True
    array_kind = "linear"
    sklearn_estimator = "ComplementNB"

    def sklearn_attributes(self, read: Any) -> dict[str, Any]:
        return {**super().sklearn_attributes(read),
                "feature_all_": read.matrix("p.feature_all")[0][0]}
