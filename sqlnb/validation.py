"""Argument checks in one place: hyperparameter constraints and sample weights.

Each family declares its hyperparameters' constraints once (``Family.constraints``), in the
vocabulary of scikit-learn's ``_parameter_constraints``: an :class:`Interval`, a set of
:class:`Options`, ``BOOLEAN``, ``ARRAY_LIKE`` or ``None``. :func:`validate_params` checks
them all and words the error as scikit-learn does.

>>> validate_params("multinomial", {"alpha": [Interval(float, 0, None)]}, {"alpha": 0.5})
>>> validate_params("multinomial", {"alpha": [Interval(float, 0, None)]}, {"alpha": "1"})
Traceback (most recent call last):
...
sqlnb.errors.InvalidParameterError: The 'alpha' parameter of multinomial naive Bayes must be \
a float in the range [0.0, inf). Got '1' instead.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from .engines.dialects import DUCKDB, Dialect
from .errors import InvalidDataError, InvalidParameterError

BOOLEAN = "boolean"
ARRAY_LIKE = "array-like"


@dataclass(frozen=True)
class Interval:
    """Numbers of ``kind`` (``int`` or ``float``) between ``left`` and ``right`` (None: no
    bound), closed on the sides named by ``closed`` (``"left"``, ``"right"``, ``"both"``,
    ``"neither"``). As in scikit-learn, ``float`` admits integers and NaN is never inside."""

    kind: type
    left: float | None
    right: float | None
    closed: str = "left"

    def admits(self, value: Any) -> bool:
        if self.kind is int:
            if not isinstance(value, numbers.Integral):
                return False
        elif not isinstance(value, numbers.Real) or math.isnan(value):
            return False
        open_left = self.closed in ("right", "neither")
        open_right = self.closed in ("left", "neither")
        # a missing bound is infinite, and excluded as the open end of the interval
        below = (value == -math.inf and open_left) if self.left is None else (
            value < self.left or (value == self.left and open_left))
        above = (value == math.inf and open_right) if self.right is None else (
            value > self.right or (value == self.right and open_right))
        return not (below or above)

    def describe(self) -> str:
        def bound(b: float | None, sign: str) -> str:
            if b is None:
                return sign + "inf"
            return str(float(b)) if self.kind is float else str(b)

        left = "[" if self.closed in ("left", "both") else "("
        right = "]" if self.closed in ("right", "both") else ")"
        what = "an int" if self.kind is int else "a float"
        return f"{what} in the range {left}{bound(self.left, '-')}, {bound(self.right, '')}{right}"


@dataclass(frozen=True)
class Options:
    """One of a few string values."""

    values: tuple[str, ...]

    def admits(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.values

    def describe(self) -> str:
        return "a str among {" + ", ".join(repr(v) for v in self.values) + "}"


def _admits(constraint: Any, value: Any) -> bool:
    if constraint is None:
        return value is None
    if constraint == BOOLEAN:
        return isinstance(value, (bool, np.bool_))
    if constraint == ARRAY_LIKE:
        # scikit-learn's "array-like": has a length, a shape or __array__, and is no scalar
        # (a string is a scalar: alpha="1" is refused)
        return (hasattr(value, "__len__") or hasattr(value, "shape")
                or hasattr(value, "__array__")) and not np.isscalar(value) \
            and not isinstance(value, dict)
    return constraint.admits(value)


def _describe(constraint: Any) -> str:
    if constraint is None:
        return "None"
    if constraint == BOOLEAN:
        return "an instance of 'bool'"
    if constraint == ARRAY_LIKE:
        return "an array-like"
    return constraint.describe()


def validate_params(owner: str, constraints: dict[str, list[Any]],
                    params: dict[str, Any]) -> None:
    """Check every parameter that has constraints; raise on the first that meets none."""
    for name, allowed in constraints.items():
        if name not in params:
            continue
        value = params[name]
        if any(_admits(c, value) for c in allowed):
            continue
        texts = [_describe(c) for c in allowed]
        expected = texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " or " + texts[-1]
        raise InvalidParameterError(
            f"The {name!r} parameter of {owner} naive Bayes must be {expected}. "
            f"Got {value!r} instead."
        )


def check_flag(name: str, value: Any) -> bool:
    """A yes/no argument: only ``True`` or ``False`` (``"no"`` would be truthy)."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_names(what: str, value: Any, *, allow_none: bool = True) -> list[str] | None:
    """A list of column names. A single string is refused rather than read as its letters."""
    if value is None and allow_none:
        return None
    if isinstance(value, str):
        raise InvalidParameterError(
            f"{what} must be a list of column names, not a string: write {what}=[{value!r}]"
        )
    try:
        names = list(value)
    except TypeError:
        raise InvalidParameterError(
            f"{what} must be a list of column names, got {value!r}"
        ) from None
    bad = [n for n in names if not isinstance(n, str)]
    if bad:
        raise InvalidParameterError(f"{what} must be column names (strings), got {bad!r}")
    return names


def check_labels(what: str, value: Any) -> None:
    """A list of class labels (or None). A single string is refused rather than read as
    its letters."""
    if isinstance(value, (str, bytes)):
        raise InvalidParameterError(
            f"{what} must be a list of labels, not a string: write {what}=[{value!r}]"
        )


def check_sample_weight(sample_weight: Any) -> np.ndarray:
    """scikit-learn's rules for an in-memory ``sample_weight`` (the scikit-learn facade), in
    its wording: finite (``check_array``), not all zero (``_check_sample_weight``) and, as
    for a weight column, non-negative (``check_non_negative``).

    >>> check_sample_weight([1, 0, 2.5])
    array([1. , 0. , 2.5])
    """
    weights = np.asarray(sample_weight, dtype=np.float64).ravel()
    if np.isnan(weights).any():
        raise InvalidDataError("Input sample_weight contains NaN.")
    if np.isinf(weights).any():
        raise InvalidDataError(
            "Input sample_weight contains infinity or a value too large for dtype('float64')."
        )
    if weights.size and not weights.any():
        raise InvalidDataError("Sample weights must contain at least one non-zero number.")
    if (weights < 0).any():
        raise InvalidDataError("Negative values in data passed to `sample_weight`.")
    return weights


def check_weights(engine: Any, source_sql: str, target_sql: str,
                  weight: str, weight_sql: str) -> None:
    """scikit-learn's rules for sample weights, on the labelled rows of a source.

    NULL, NaN, infinite and negative weights are refused, and so is a source whose labelled
    rows all weigh zero. One scan of the weight and target columns.
    """
    nulls, nans, infinite, negative, non_zero, rows = engine.fetch(engine.render(
        "fit/weight_checks.sql", source=source_sql, target=target_sql, weight=weight_sql
    ))[0]
    column = f"weight column {weight!r}"
    if nulls:
        raise InvalidDataError(
            f"{column} has {nulls} NULL value(s) in labelled rows: give every row a weight "
            f"(e.g. coalesce({weight}, 1)) or leave those rows out"
        )
    if nans:
        raise InvalidDataError(f"{column} contains NaN ({nans} row(s)): sample weights must "
                               "be finite numbers >= 0")
    if infinite:
        raise InvalidDataError(f"{column} contains infinity ({infinite} row(s)): sample "
                               "weights must be finite numbers >= 0")
    if negative:
        raise InvalidDataError(f"{column} has {negative} negative value(s): sample weights "
                               "must be >= 0")
    if rows and not non_zero:
        raise InvalidDataError(f"{column}: sample weights must contain at least one non-zero "
                               "number (every labelled row weighs 0)")


INTERNAL_PREFIX = "__sqlnb_"  # the scoring statements' own columns start with this


def check_output_clashes(columns: Any, outputs: set[str]) -> None:
    """Refuse a source column that a scoring result would have twice, or that sqlnb's own
    intermediate columns would shadow. DuckDB compares column names case-insensitively."""
    taken = {name.lower() for name in outputs}
    for column in columns:
        if column.lower() in taken:
            raise InvalidDataError(
                f"the source already has a column {column!r}, which the result would add "
                f"again; leave it out or rename it first, e.g. "
                f"con.sql('SELECT * RENAME ({DUCKDB.ident(column)} AS old_{column}) FROM t')"
            )
        if column.lower().startswith(INTERNAL_PREFIX):
            raise InvalidDataError(
                f"the source has a column {column!r}: names starting with {INTERNAL_PREFIX!r} "
                "are sqlnb's own scoring columns; rename or drop it first"
            )


# Label types DuckDB cannot use as a key of the model's tables, or sqlnb cannot write as a
# SQL literal in a scoring statement.
_UNUSABLE_LABEL_TYPES = ("UUID", "BLOB", "BYTEA", "BIT", "INTERVAL", "JSON", "GEOMETRY")


def is_key_type(sql_type: str, dialect: Dialect = DUCKDB) -> bool:
    """Whether values of ``sql_type`` can key the model's tables and be written as SQL
    literals (class labels, group values): not UUID, BLOB, lists, structs, maps…"""
    return dialect.kind(sql_type) != "nested" and sql_type.upper() not in _UNUSABLE_LABEL_TYPES


def check_label_type(target: str, sql_type: str, dialect: Dialect = DUCKDB) -> None:
    """Refuse a target column whose type cannot hold class labels (UUID, BLOB, lists,
    structs, maps…), saying how to convert it.

    >>> check_label_type("y", "VARCHAR")
    >>> check_label_type("y", "INTEGER[]")
    Traceback (most recent call last):
    ...
    sqlnb.errors.InvalidDataError: the target column 'y' has type INTEGER[], which cannot \
hold class labels: convert it to text or numbers first, e.g. con.sql('SELECT * REPLACE \
(CAST("y" AS VARCHAR) AS "y") FROM t')
    """
    if not is_key_type(sql_type, dialect):
        raise InvalidDataError(
            f"the target column {target!r} has type {sql_type}, which cannot hold class "
            "labels: convert it to text or numbers first, e.g. "
            f"con.sql('SELECT * REPLACE (CAST({dialect.ident(target)} AS VARCHAR) AS "
            f"{dialect.ident(target)}) FROM t')"
        )


def check_weight_type(weight: str, sql_type: str, dialect: Dialect = DUCKDB) -> None:
    """A weight column must hold numbers; a BOOLEAN one is refused rather than guessed."""
    if dialect.kind(sql_type) not in ("integer", "float", "decimal"):
        raise InvalidDataError(
            f"weight column {weight!r} has type {sql_type}, but sample weights are numbers "
            f">= 0; for a yes/no column use its rows as weights 1/0, e.g. "
            f"CAST({dialect.ident(weight)} AS INTEGER)"
        )
