"""The naive Bayes families: small declarative classes.

A family names its template in ``sql/families/``, its hyperparameters with
scikit-learn's names and defaults, and the few decisions Python makes for it
(validation, per-feature hyperparameters). All arithmetic is in the template.

One module per family (``gaussian.py`` beside ``sql/families/gaussian.sql``),
their shared base in ``base.py`` and ``counts.py``; this module lists them.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameterError
from .base import (
    ALPHA_MIN,
    COMMON_CONSTRAINTS,
    MAX_CATEGORIES,
    MISSING_MODES,
    NON_NEGATIVE,
    PART_FAMILIES,
    UNSEEN_MODES,
    Family,
    as_float_list,
    check_coding,
)
from .bernoulli import Bernoulli
from .categorical import Categorical
from .complement import Complement
from .counts import DISCRETE_DEFAULTS, Discrete
from .gaussian import Gaussian
from .multinomial import Multinomial
from .poisson import Poisson


def fill_term(term: dict[str, Any], family: str, row: tuple,
              extra_names: list[str] | tuple[str, ...]) -> None:
    """Put one row of ``catalog/read_params.sql`` (class_index, feature, parameters…) into the
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

__all__ = ['ALPHA_MIN', 'COMMON_CONSTRAINTS', 'DISCRETE_DEFAULTS', 'FAMILIES', 'MAX_CATEGORIES', 'MISSING_MODES', 'NON_NEGATIVE', 'PART_FAMILIES', 'UNSEEN_MODES', 'Bernoulli', 'Categorical', 'Complement', 'Discrete', 'Family', 'Gaussian', 'Multinomial', 'Poisson', 'as_float_list', 'check_coding', 'fill_term', 'for_sklearn_estimator', 'make_family']
