"""Bernoulli naive Bayes: binary features, absences counted (``sql/families/bernoulli.sql``)."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

from ..errors import InvalidParameterError
from .base import NON_NEGATIVE
from .counts import DISCRETE_DEFAULTS, Discrete


class Bernoulli(Discrete):
    name = "bernoulli"
    drift_method = "psi"
    described_by = ("bars", "probability", "P(non-zero | class)")
    defaults: ClassVar[dict[str, Any]] = {**DISCRETE_DEFAULTS, "binarize": 0.0}
    sparse_input = True
    propagates_nan = False  # NaN > threshold is true: the NaN test is always applied
    statistics_params = ("binarize",)
    counts_rows = True
    scoring_parameters = ("coef", "log_neg_prob")
    array_kind = "linear"
    sklearn_estimator = "BernoulliNB"
    part_params = ("alpha", "force_alpha", "binarize", "missing")
    constraints: ClassVar[dict[str, list[Any]]] = {**Discrete.constraints,
                                                   "binarize": [None, NON_NEGATIVE]}

    def validate(self) -> None:
        super().validate()
        b = self.params["binarize"]
        if b is not None and (isinstance(b, bool) or not isinstance(b, numbers.Real)):
            raise InvalidParameterError(f"binarize must be a number or None, got {b!r}")
        if b is not None:
            self.params["binarize"] = float(b)

    def batch_options(self) -> dict[str, Any]:
        return {"binarize": self.params["binarize"]}
