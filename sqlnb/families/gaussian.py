"""Gaussian naive Bayes: a normal law per class and feature (``sql/families/gaussian.sql``)."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np

from ..errors import InvalidParameterError
from ..validation import ARRAY_LIKE
from .base import COMMON_CONSTRAINTS, NON_NEGATIVE, Family, as_float_list


class Gaussian(Family):
    name = "gaussian"
    described_by = ("density", "theta", "density")
    defaults: ClassVar[dict[str, Any]] = {"priors": None, "var_smoothing": 1e-9,
                                          "missing": "ignore"}
    has_batch = True
    shifted = True
    long_sums = True
    pilot_rows = 2048  # rows looked at to choose the shift of the sums
    sum_suffix = "_s1"
    amount_column = "weight"
    scoring_parameters = ("theta", "var")
    array_kind = "distance"
    statistics_shape = "moments"
    drift_method = "gaussian_kl"
    sklearn_estimator = "GaussianNB"
    part_params = ("var_smoothing", "missing")

    def sklearn_attributes(self, read: Any) -> dict[str, Any]:
        theta, var = read.matrix("p.theta", "p.var")
        priors = self.prior_list()
        return {"theta_": theta, "var_": var, "epsilon_": float(read.first("p.epsilon")),
                "class_prior_": (np.exp(read.log_prior) if priors is None
                                 else np.asarray(priors, dtype=np.float64))}

    @classmethod
    def fill_term(cls, term: dict[str, Any], row: tuple,
                  extra_names: list[str] | tuple[str, ...]) -> None:
        term["theta"], term["var"] = row[2], row[3]
    constraints: ClassVar[dict[str, list[Any]]] = {
        **COMMON_CONSTRAINTS, "priors": [ARRAY_LIKE, None], "var_smoothing": [NON_NEGATIVE]}

    def validate(self) -> None:
        vs = self.params["var_smoothing"]
        if isinstance(vs, bool) or not isinstance(vs, numbers.Real) or not vs >= 0:
            raise InvalidParameterError(f"var_smoothing must be a number >= 0, got {vs!r}")
        priors = self.params["priors"]
        if priors is not None:
            values = as_float_list(priors, "priors")
            if any(v < 0 for v in values):
                raise InvalidParameterError("priors must be non-negative")
            if not np.isclose(sum(values), 1.0):
                raise InvalidParameterError("the sum of the priors should be 1")

    def prior_list(self) -> list[float] | None:
        priors = self.params["priors"]
        return None if priors is None else as_float_list(priors, "priors")
