"""The count families' base: smoothed per-class counts (``sql/families/counts.sql``)."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

from ..errors import InvalidParameterError
from ..validation import ARRAY_LIKE, BOOLEAN
from .base import ALPHA_MIN, COMMON_CONSTRAINTS, NON_NEGATIVE, Family, as_float_list


class Discrete(Family):
    """Families smoothed by ``alpha`` with an optional fitted or given class prior."""

    vector_alpha: ClassVar[bool] = True
    constraints: ClassVar[dict[str, list[Any]]] = {
        **COMMON_CONSTRAINTS,
        "alpha": [NON_NEGATIVE, ARRAY_LIKE],
        "fit_prior": [BOOLEAN],
        "class_prior": [ARRAY_LIKE, None],
        "force_alpha": [BOOLEAN],
    }

    def validate(self) -> None:
        alpha = self.params["alpha"]
        values = as_float_list(alpha, "alpha")
        if not np.isscalar(alpha) and not self.vector_alpha:
            raise InvalidParameterError(f"{self.name} naive Bayes takes a single alpha")
        if not values or min(values) < 0:
            raise InvalidParameterError(f"alpha must be >= 0, got {alpha!r}")
        if self.params["class_prior"] is not None:
            prior = as_float_list(self.params["class_prior"], "class_prior")
            if any(v < 0 for v in prior):
                raise InvalidParameterError("class_prior must be non-negative")

    def prior_list(self) -> list[float] | None:
        prior = self.params["class_prior"]
        return None if prior is None else as_float_list(prior, "class_prior")

    def fit_prior(self) -> bool:
        return bool(self.params["fit_prior"])

    def alphas(self, n_features: int) -> list[float]:
        alpha = self.params["alpha"]
        values = as_float_list(alpha, "alpha")
        if np.isscalar(alpha) or np.ndim(alpha) == 0:
            values = values * n_features
        elif len(values) != n_features:
            raise InvalidParameterError(
                f"when alpha is an array it needs one value per feature: got {len(values)} "
                f"values for {n_features} features"
            )
        if min(values) < ALPHA_MIN and not self.params["force_alpha"]:
            warnings.warn(
                f"alpha too small will result in numeric errors, setting alpha = {ALPHA_MIN:.1e}. "
                "Use `force_alpha=True` to keep alpha unchanged.",
                stacklevel=4,
            )
            values = [max(v, ALPHA_MIN) for v in values]
        return values

    def feature_options(self, n_features: int) -> list[dict[str, Any]]:
        return [
            {"alpha": a, "coding": None, "min_categories": None} for a in self.alphas(n_features)
        ]

    def sklearn_attributes(self, read: Any) -> dict[str, Any]:
        count, log_prob = read.matrix("s.count", "p.log_prob")
        return {"class_log_prior_": read.log_prior, "feature_count_": count,
                "feature_log_prob_": log_prob}


DISCRETE_DEFAULTS = {"alpha": 1.0, "force_alpha": True, "fit_prior": True, "class_prior": None,
                      "missing": "ignore"}
