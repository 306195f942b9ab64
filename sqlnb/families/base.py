"""What every naive Bayes family shares: its hyperparameter checks, the limits and
modes common to all, and the ``Family`` base class."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, ClassVar

import numpy as np

from ..engines.dialects import Dialect
from ..errors import InvalidDataError, InvalidParameterError
from ..validation import Interval, Options, validate_params

ALPHA_MIN = 1e-10


# The largest domain of an integer-coded categorical column (codes 0..k-1): each code is a
# row per class in the parameters and a branch of the scoring expression, so a stray code
# of 1,000,000 would exhaust memory. A hyperparameter (max_categories) can raise it.
MAX_CATEGORIES = 10_000


# The families a column of a mixed model (family="auto") can have, in the order its parts
# are fitted. Complement naive Bayes is left out: its per-class terms are not a likelihood.
PART_FAMILIES = ("gaussian", "bernoulli", "categorical", "multinomial", "poisson")


# How NULL (and NaN in floating-point columns) is treated: left out of the feature's
# statistics at fit and of the row's log-likelihood at predict, or rejected.
MISSING_MODES = ("ignore", "error")


UNSEEN_MODES = ("smooth", "ignore", "error")


NON_NEGATIVE = Interval(float, 0, None, closed="left")


# Constraints shared by every family (scikit-learn has no missing values).
COMMON_CONSTRAINTS: dict[str, list[Any]] = {"missing": [Options(MISSING_MODES)]}


class Family:
    """One naive Bayes family: what it fits, its hyperparameters and their checks."""

    name: ClassVar[str]
    defaults: ClassVar[dict[str, Any]]
    numeric: ClassVar[bool] = True          # features must be numeric columns
    has_batch: ClassVar[bool] = False       # the template writes its own batch query
    long_batch: ClassVar[bool] = False      # ... with one row per class x feature x value
    # a small batch can be summed long: a row per class and feature (the template's
    # batch macro with t.long_sums; sqlnb/pipeline.py decides)
    long_sums: ClassVar[bool] = False
    shifted: ClassVar[bool] = False         # sums are taken around per-class pilot values
    has_batch_checks: ClassVar[bool] = False
    min_classes: ClassVar[int] = 1
    composite: ClassVar[bool] = False     # one family per column (family="auto")
    # the hyperparameters that decide which columns make each part (fixed for a search)
    layout_params: ClassVar[tuple[str, ...]] = ()
    sparse_input: ClassVar[bool] = False  # fits sparse, text and long input (counts)
    per_category: ClassVar[bool] = False  # parameters per category value, not per feature
    count_sums: ClassVar[bool] = False    # a document's statistic is a sum of its counts
    propagates_nan: ClassVar[bool] = True  # a NaN input makes its sums and terms NaN
    # The batch table's column holding a feature's plain sum (the NaN probe reads it).
    sum_suffix: ClassVar[str] = "_s"
    # The feature_stats column that adds up (forget checks it stays >= 0).
    amount_column: ClassVar[str] = "count"
    # The count is the weight of the rows where the feature is present (binarized), so it
    # never exceeds the weight it was counted over (an import checks it).
    counts_rows: ClassVar[bool] = False
    # Hyperparameters that shape the statistics: an update cannot change them.
    statistics_params: ClassVar[tuple[str, ...]] = ()
    # The scoring parameters a per-group model keeps per group, class and feature.
    scoring_parameters: ClassVar[tuple[str, ...]] = ("coef",)
    # How the "arrays" scoring strategy (sqlnb/scoring.py) computes the joint
    # log-likelihood: "distance" (a scaled squared distance), "linear" (a dot product) or
    # "counts" (a dot product less the log-factorials of the counts); None: not covered.
    array_kind: ClassVar[str | None] = None
    # scikit-learn's _parameter_constraints for the family's hyperparameters
    constraints: ClassVar[dict[str, list[Any]]] = COMMON_CONSTRAINTS
    # How one feature's fitted distribution is described (sqlnb.diagnostics) and drawn
    # (sqlnb.plot): its shape ("density": theta and var; "categories": a probability per
    # category; "bars": one value per class), the column holding that value, and its label.
    described_by: ClassVar[tuple[str, str, str] | None] = None
    # What the feature statistics hold per class and feature: "counts" (a sum of values),
    # "moments" (a mean and a sum of squared deviations) or "categories" (a count per
    # category value); copies, searches and diagnostics follow it.
    statistics_shape: ClassVar[str] = "counts"
    # How sqlnb.explain.drift compares new rows with the statistics: "poisson_kl" (the mean
    # count), "gaussian_kl" (mean and variance), "psi" (shares of categories, or of values
    # above ``binarize``); see sql/reports/drift.sql.
    drift_method: ClassVar[str] = "poisson_kl"
    # scikit-learn's estimator of the family in ``sklearn.naive_bayes`` (None: it has none).
    sklearn_estimator: ClassVar[str | None] = None
    # The hyperparameters of a mixed model (family="auto") a part of this family receives.
    part_params: ClassVar[tuple[str, ...]] = ("alpha", "force_alpha", "missing")

    def __init__(self, **params: Any) -> None:
        unknown = set(params) - set(self.defaults)
        if unknown:
            raise InvalidParameterError(
                f"{self.name} naive Bayes has no hyperparameter {', '.join(sorted(unknown))}; "
                f"it takes {', '.join(self.defaults)}"
            )
        self.params = {**self.defaults, **params}
        validate_params(self.name, self.constraints, self.params)
        self.validate()

    @property
    def template(self) -> str:
        return f"families/{self.name}.sql"

    def validate(self) -> None:
        """Check hyperparameters that do not depend on the data."""

    def prior_list(self) -> list[float] | None:
        return None

    def fit_prior(self) -> bool:
        return True

    def batch_options(self) -> dict[str, Any]:
        return {}

    def feature_options(self, n_features: int) -> list[dict[str, Any]]:
        """Per-feature hyperparameters stored in the features table."""
        return [{"alpha": None, "coding": None, "min_categories": None} for _ in range(n_features)]

    def parts_of(self, features: list[dict[str, Any]]
                 ) -> list[tuple[str | None, Family, list[dict[str, Any]]]]:
        """The parts a fitted model of this family keeps over ``features`` (as its metadata
        lists them), each as (the name its relations carry, ``None`` for the model's own;
        its family; its features): a model of one family is one part."""
        return [(None, self, features)]

    def resume(self, stored: list[dict[str, Any]]) -> None:
        """Before an update: take up what the first fit decided per column, as the
        ``stored`` features record it (nothing for one family over every column)."""

    def check_batch_columns(self, model_name: str, stored: list[dict[str, Any]],
                            batch: list[dict[str, Any]], dialect: Dialect) -> None:
        """Refuse an update's ``batch`` features whose types the ``stored`` ones cannot
        continue: a family with parameters per category compares values as text, so a
        column's coding must stay (see :func:`check_coding`)."""
        if self.per_category:
            for old, new in zip(stored, batch):
                check_coding(model_name, old, new, dialect)

    def check_feature_type(self, name: str, sql_type: str, dialect: Dialect) -> None:
        if self.numeric and not dialect.is_numeric(sql_type):
            raise InvalidDataError(
                f"feature {name!r} has type {sql_type}, but {self.name} naive Bayes needs numbers"
            )

    @classmethod
    def fill_term(cls, term: dict[str, Any], row: tuple,
                  extra_names: list[str] | tuple[str, ...]) -> None:
        """Put one row of ``catalog/read_params.sql`` (class_index, feature, parameters…) into the
        scoring term of that class and feature; ``extra_names`` name the parameters after
        the coefficient (e.g. bernoulli's ``log_neg_prob``)."""
        term["coef"] = row[2]
        term.update(zip(extra_names, row[3:]))

    @classmethod
    def read_terms(cls, rows: list[tuple], extra_names: list[str] | tuple[str, ...],
                   describe: Any = None) -> dict[int, dict[str, dict[str, Any]]]:
        """The scoring terms of ``catalog/read_params.sql``'s rows (class_index, feature,
        parameters…), by class index then feature: the one reader of parameter rows.
        ``describe(feature)`` gives the fields a new term starts with (its column…)."""
        terms: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
        for row in rows:
            class_index, feature = row[0], row[1]
            by_feature = terms[class_index]
            term = by_feature.get(feature)
            if term is None:
                term = by_feature[feature] = {"name": feature,
                                              **(describe(feature) if describe else {})}
            cls.fill_term(term, row, extra_names)
        return terms

    def sklearn_attributes(self, read: Any) -> dict[str, Any]:
        """scikit-learn's fitted attributes particular to the family (besides ``classes_``
        and ``class_count_``), from ``read``: a :class:`sqlnb.attributes.Reader` over the
        model's tables (``log_prior``, ``matrix(*columns)``, ``first(column)``,
        ``categories()``)."""
        raise InvalidParameterError(
            f"scikit-learn has no estimator for {self.name} naive Bayes"
        )

    def check_priors(self, n_classes: int) -> None:
        priors = self.prior_list()
        if priors is not None and len(priors) != n_classes:
            raise InvalidParameterError(
                f"{len(priors)} priors were given for {n_classes} classes: "
                "the number of priors must match the number of classes"
            )


def check_coding(model_name: str, old: dict[str, Any], new: dict[str, Any],
                 dialect: Dialect) -> None:
    """Categorical values are compared as text: a feature's batch type must be an integer
    code as the stored one is, or the very same type."""
    both_integer = dialect.kind(old["type"]) == "integer" == dialect.kind(new["type"])
    if not (both_integer or old["type"].upper() == new["type"].upper()):
        raise InvalidDataError(
            f"feature {old['name']!r} was {old['type']} in model {model_name!r} "
            f"but is {new['type']} in the batch"
        )


def as_float_list(value: Any, what: str) -> list[float]:
    try:
        array = np.asarray(value, dtype=float).ravel()
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{what} must be numbers, got {value!r}") from None
    if not np.all(np.isfinite(array)):
        raise InvalidParameterError(f"{what} must be finite numbers, got {value!r}")
    return [float(v) for v in array]
