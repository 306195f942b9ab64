"""Categorical naive Bayes: a distribution over each feature's categories
(``sql/families/categorical.sql``)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, ClassVar

import numpy as np

from ..engines.dialects import Dialect
from ..errors import InvalidDataError, InvalidParameterError
from ..validation import ARRAY_LIKE, Interval, Options
from .base import MAX_CATEGORIES, NON_NEGATIVE, UNSEEN_MODES
from .counts import DISCRETE_DEFAULTS, Discrete


class Categorical(Discrete):
    name = "categorical"
    described_by = ("categories", "probability", "P(category | class)")
    defaults: ClassVar[dict[str, Any]] = {**DISCRETE_DEFAULTS, "min_categories": None,
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
        # (read_params_elided: a feature of many categories gives its unseen row only, and
        # says so; its categories are joined from the parameter view where it is scored)
        # (extra_names name the columns from the coefficient on)
        elided_at = list(extra_names).index("elided") - 1 if "elided" in extra_names else None
        for class_index, feature, category, coef, *rest in rows:
            by_feature = terms[class_index]
            term = by_feature.get(feature)
            if term is None:
                term = by_feature[feature] = {"name": feature,
                                              **(describe(feature) if describe else {}),
                                              "categories": []}
                if elided_at is not None and rest[elided_at]:
                    term["elided"] = True
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
