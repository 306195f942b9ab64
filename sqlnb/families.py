"""The naive Bayes families: small declarative classes.

A family names its template in ``sql/families/``, its hyperparameters with
scikit-learn's names and defaults, and the few decisions Python makes for it
(validation, per-feature hyperparameters). All arithmetic is in the template.
"""

from __future__ import annotations

import numbers
import warnings
from collections import defaultdict
from typing import Any, ClassVar

import numpy as np

from .dialect import Dialect
from .errors import InvalidDataError, InvalidParameterError
from .validation import ARRAY_LIKE, BOOLEAN, Interval, Options, validate_params

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
    shifted: ClassVar[bool] = False         # sums are taken around per-class pilot values
    has_batch_checks: ClassVar[bool] = False
    min_classes: ClassVar[int] = 1
    composite: ClassVar[bool] = False     # one family per column (family="auto")
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
    # above ``binarize``); see sql/drift.sql.
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

    def check_feature_type(self, name: str, sql_type: str, dialect: Dialect) -> None:
        if self.numeric and not dialect.is_numeric(sql_type):
            raise InvalidDataError(
                f"feature {name!r} has type {sql_type}, but {self.name} naive Bayes needs numbers"
            )

    @classmethod
    def fill_term(cls, term: dict[str, Any], row: tuple,
                  extra_names: list[str] | tuple[str, ...]) -> None:
        """Put one row of ``read_params.sql`` (class_index, feature, parameters…) into the
        scoring term of that class and feature; ``extra_names`` name the parameters after
        the coefficient (e.g. bernoulli's ``log_neg_prob``)."""
        term["coef"] = row[2]
        term.update(zip(extra_names, row[3:]))

    @classmethod
    def read_terms(cls, rows: list[tuple], extra_names: list[str] | tuple[str, ...],
                   describe: Any = None) -> dict[int, dict[str, dict[str, Any]]]:
        """The scoring terms of ``read_params.sql``'s rows (class_index, feature,
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


def as_float_list(value: Any, what: str) -> list[float]:
    try:
        array = np.asarray(value, dtype=float).ravel()
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{what} must be numbers, got {value!r}") from None
    if not np.all(np.isfinite(array)):
        raise InvalidParameterError(f"{what} must be finite numbers, got {value!r}")
    return [float(v) for v in array]


class Gaussian(Family):
    name = "gaussian"
    described_by = ("density", "theta", "density")
    defaults: ClassVar[dict[str, Any]] = {"priors": None, "var_smoothing": 1e-9,
                                          "missing": "ignore"}
    has_batch = True
    shifted = True
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


_DISCRETE_DEFAULTS = {"alpha": 1.0, "force_alpha": True, "fit_prior": True, "class_prior": None,
                      "missing": "ignore"}


class Multinomial(Discrete):
    name = "multinomial"
    described_by = ("bars", "probability", "share of the class's counts")
    defaults: ClassVar[dict[str, Any]] = dict(_DISCRETE_DEFAULTS)
    has_batch_checks = True
    sparse_input = True
    count_sums = True
    array_kind = "linear"
    sklearn_estimator = "MultinomialNB"


class Complement(Discrete):
    name = "complement"
    described_by = ("bars", "weight", "complement weight")
    defaults: ClassVar[dict[str, Any]] = {**_DISCRETE_DEFAULTS, "norm": False}
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


class Bernoulli(Discrete):
    name = "bernoulli"
    drift_method = "psi"
    described_by = ("bars", "probability", "P(non-zero | class)")
    defaults: ClassVar[dict[str, Any]] = {**_DISCRETE_DEFAULTS, "binarize": 0.0}
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


class Categorical(Discrete):
    name = "categorical"
    described_by = ("categories", "probability", "P(category | class)")
    defaults: ClassVar[dict[str, Any]] = {**_DISCRETE_DEFAULTS, "min_categories": None,
                                          "unseen": "smooth",
                                          "max_categories": MAX_CATEGORIES,
                                          "value_columns": None}
    numeric = False
    has_batch = True
    long_batch = True
    has_batch_checks = True
    vector_alpha = False
    per_category = True
    propagates_nan = False  # 'nan' would be a category: the NaN test is always applied
    scoring_parameters = ("unseen",)
    statistics_shape = "categories"
    drift_method = "psi"
    sklearn_estimator = "CategoricalNB"
    part_params = ("alpha", "force_alpha", "min_categories", "unseen", "missing",
                   "max_categories", "value_columns")

    def sklearn_attributes(self, read: Any) -> dict[str, Any]:
        rows = read.categories()  # class, feature, category, count, log_prob, n_categories
        sizes = np.zeros(read.n_features, dtype=np.int64)
        for row in rows:
            sizes[row[1]] = row[5]
        counts = [np.zeros((read.n_classes, size)) for size in sizes]
        log_probs = [np.zeros((read.n_classes, size)) for size in sizes]
        for class_index, feature_index, category, count, log_prob, _ in rows:
            counts[feature_index][class_index, category] = count
            log_probs[feature_index][class_index, category] = log_prob
        return {"class_log_prior_": read.log_prior, "n_categories_": sizes,
                "category_count_": counts, "feature_log_prob_": log_probs}

    @classmethod
    def fill_term(cls, term: dict[str, Any], row: tuple,
                  extra_names: list[str] | tuple[str, ...]) -> None:
        category, coef = row[2], row[3]
        if category is None:  # the row of a category never seen at fit
            term["unseen"] = coef
        else:
            term.setdefault("categories", []).append((category, coef))

    @classmethod
    def read_terms(cls, rows: list[tuple], extra_names: list[str] | tuple[str, ...],
                   describe: Any = None) -> dict[int, dict[str, dict[str, Any]]]:
        """The terms, each also with its categories sorted (``sorted_categories``, one tuple
        per feature shared by every class) and the class's coefficients in that order
        (``sorted_coefs``):
        what the scoring SQL writes once per feature and per class, without a loop over
        the categories in a template."""
        # one row per class, feature and category: the loop of Family.read_terms and
        # fill_term, written out (a wide model has hundreds of thousands of rows)
        terms: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
        for class_index, feature, category, coef, *_ in rows:
            by_feature = terms[class_index]
            term = by_feature.get(feature)
            if term is None:
                term = by_feature[feature] = {"name": feature,
                                              **(describe(feature) if describe else {}),
                                              "categories": []}
            if category is None:  # the row of a category never seen at fit
                term["unseen"] = coef
            else:
                term["categories"].append((category, coef))
        keys: dict[str, tuple[str, ...]] = {}
        for by_feature in terms.values():
            for name, term in by_feature.items():
                pairs = term.get("categories", [])
                categories = tuple(category for category, _ in pairs)
                shared = keys.get(name)
                if shared is None:  # read_params.sql orders them: no sort here
                    shared = keys[name] = categories
                if shared == categories:
                    coefs = [float(coef) for _, coef in pairs]
                elif set(shared) == set(categories):  # the same order in every class
                    by_category = dict(pairs)
                    coefs = [float(by_category[category]) for category in shared]
                else:  # another domain (per-group parameters): this class's own list
                    shared, coefs = categories, [float(coef) for _, coef in pairs]
                term["sorted_categories"] = shared
                term["sorted_coefs"] = coefs
        return terms
    constraints: ClassVar[dict[str, list[Any]]] = {
        **Discrete.constraints,
        "min_categories": [None, ARRAY_LIKE, Interval(int, 1, None, closed="left")],
        "alpha": [NON_NEGATIVE],
        "unseen": [Options(UNSEEN_MODES)],
        "max_categories": [Interval(int, 1, None, closed="left")],
        "value_columns": [None, ARRAY_LIKE],
    }

    def validate(self) -> None:
        super().validate()
        if self.params["unseen"] not in UNSEEN_MODES:
            raise InvalidParameterError("unseen must be 'smooth', 'ignore' or 'error'")
        names = self.params["value_columns"]
        if isinstance(names, str) or (names is not None
                                      and not all(isinstance(n, str) for n in names)):
            raise InvalidParameterError(
                f"value_columns must be a list of column names, got {names!r}"
            )
        if names is not None:
            self.params["value_columns"] = list(names)
        mc = self.params["min_categories"]
        if mc is not None:
            array = np.asarray(mc)
            if not np.issubdtype(array.dtype, np.integer):
                raise InvalidParameterError(
                    f"'min_categories' should have integral type. Got {array.dtype} instead."
                )

    def feature_options(self, n_features: int) -> list[dict[str, Any]]:
        alpha = self.alphas(n_features)
        mc = self.params["min_categories"]
        if mc is None:
            mins = [None] * n_features
        elif np.ndim(mc) == 0:
            mins = [int(mc)] * n_features
        else:
            mins = [int(v) for v in np.asarray(mc).ravel()]
            if len(mins) != n_features:
                raise InvalidParameterError(
                    f"'min_categories' should have shape ({n_features},) when an array-like "
                    f"is provided. Got ({len(mins)},) instead."
                )
        limit = self.params["max_categories"]
        for m in mins:
            if m is not None and m > limit:
                raise InvalidDataError(
                    f"min_categories={m} asks for more categories than max_categories={limit}: "
                    "every one would be a row of the model per class; lower min_categories, "
                    "or raise max_categories if the model is meant to be that large"
                )
        return [{"alpha": a, "coding": None, "min_categories": m, "max_categories": limit}
                for a, m in zip(alpha, mins)]

    def coding(self, name: str, sql_type: str, dialect: Dialect) -> str:
        """How a column's values are categories: ``"integer"`` codes 0..k-1 as in
        scikit-learn (every code up to the largest is in the domain), or ``"value"``: the
        values seen, as they are (text columns, and the integer columns named in
        ``value_columns``)."""
        if (dialect.kind(sql_type) == "integer"
                and name not in (self.params["value_columns"] or ())):
            return "integer"
        return "value"


class Poisson(Discrete):
    """Counts with a Poisson distribution per class and feature.

    The rate is smoothed like the other count families:
    rate_cf = (sum_cf + alpha) / (weight_cf + alpha), the posterior mean under a
    Gamma(alpha, alpha) prior (alpha pseudo-rows with a count of one).
    """

    name = "poisson"
    described_by = ("bars", "rate", "Poisson rate")
    defaults: ClassVar[dict[str, Any]] = dict(_DISCRETE_DEFAULTS)
    has_batch_checks = True
    vector_alpha = True
    scoring_parameters = ("coef", "rate")
    array_kind = "counts"


def fill_term(term: dict[str, Any], family: str, row: tuple,
              extra_names: list[str] | tuple[str, ...]) -> None:
    """Put one row of ``read_params.sql`` (class_index, feature, parameters…) into the
    scoring term of that class and feature, as family ``family`` reads it."""
    FAMILIES[family].fill_term(term, row, extra_names)


FAMILIES: dict[str, type[Family]] = {
    cls.name: cls for cls in (Gaussian, Multinomial, Complement, Bernoulli, Categorical, Poisson)
}


def for_sklearn_estimator(class_name: str) -> str | None:
    """The family whose scikit-learn estimator is called ``class_name`` (or None).

    >>> for_sklearn_estimator("BernoulliNB"), for_sklearn_estimator("Pipeline")
    ('bernoulli', None)
    """
    return next((name for name, cls in FAMILIES.items()
                 if cls.sklearn_estimator == class_name), None)


def make_family(name: str, **params: Any) -> Family:
    try:
        cls = FAMILIES[name]
    except KeyError:
        raise InvalidParameterError(
            f"unknown family {name!r}; choose one of {', '.join(FAMILIES)}"
        ) from None
    return cls(**params)
