"""Exceptions raised by sqlnb.

Every error sqlnb raises on purpose derives from :class:`SqlnbError`, so callers can catch
one type. The subclasses also derive from the matching built-in (``ValueError``,
``KeyError``…) so code written against scikit-learn's exceptions keeps working.
"""

from __future__ import annotations

import re
from typing import Any


class SqlnbError(Exception):
    """Base class of every error raised by sqlnb."""


class InvalidParameterError(SqlnbError, ValueError):
    """A hyperparameter or argument has a value the family cannot use."""


class UnknownColumnError(SqlnbError, KeyError):
    """A named column (feature, target, weight) is not in the source."""

    def __str__(self) -> str:  # KeyError would print the message with quotes around it
        return str(self.args[0]) if self.args else ""


class InvalidDataError(SqlnbError, ValueError):
    """The data cannot be fitted or scored: wrong types, negative counts, NaN, …"""


class EmptyInputError(InvalidDataError):
    """The source has no usable rows."""


class NotFittedError(SqlnbError, AttributeError):
    """The model has no statistics yet: call ``fit`` first."""


class ModelNotFoundError(SqlnbError, LookupError):
    """No model of that name exists in the database."""


class IncompatibleModelError(ModelNotFoundError):
    """A model of that name exists but cannot be used: written by a newer sqlnb (schema
    version; ``newer`` is True), or incomplete (a relation missing) or corrupt (unreadable
    metadata)."""

    newer = False


class ReadOnlyError(SqlnbError, PermissionError):
    """A write was asked of a database opened read-only."""


class ConflictError(SqlnbError, RuntimeError):
    """Another connection wrote the same rows at the same time; this write was rolled back
    and changed nothing. Retrying it is safe (``retryable`` is True)."""

    retryable = True


class TransactionError(SqlnbError, RuntimeError):
    """A write was refused because the connection has an open transaction of the caller's."""


class NameConflictError(SqlnbError, ValueError):
    """A relation the model needs has a name already taken by something the model does not own."""


class ExportExistsError(SqlnbError, FileExistsError):
    """An export's target path is taken: by an earlier export (pass ``overwrite=True``) or
    by something that is not an export (left alone)."""


class SkippedRowsWarning(UserWarning):
    """Fit left some rows out (their target is NULL); the warning says how many."""


class CoercedValuesWarning(UserWarning):
    """A categorical feature arrived with another type than at fit (a float-coded copy of
    an integer column, 0/1 for a BOOLEAN one); its values were compared by value."""


def first_few(names: list[str], shown: int = 3) -> str:
    """The first ``shown`` names, quoted, and how many more: "'a', 'b', 'c' and 7 more".

    >>> first_few(["a", "b", "c", "d"])
    "'a', 'b', 'c' and 1 more"
    """
    head = ", ".join(repr(n) for n in names[:shown])
    return head + (f" and {len(names) - shown} more" if len(names) > shown else "")


def describe_problems(problems: list[tuple]) -> str:
    """The message of a failed data check: one short sentence per kind of problem, naming
    the first few features.

    >>> describe_problems([("x10", "has negative values"), ("x2", "has negative values")])
    "cannot fit: features 'x2', 'x10' have negative values"
    """
    by_problem: dict[str, list[str]] = {}
    for feature, problem in problems:
        names = by_problem.setdefault(problem, [])
        if feature not in names:
            names.append(feature)
    parts = []
    for problem, names in by_problem.items():
        names = sorted(names, key=_natural_key)
        if len(names) == 1:
            parts.append(f"feature {names[0]!r} {problem}")
        else:
            verb, _, rest = problem.partition(" ")
            plural = {"has": "have", "contains": "contain"}.get(verb, verb)
            parts.append(f"features {first_few(names)} {plural} {rest}")
    return "cannot fit: " + "; ".join(parts)


def _natural_key(name: str) -> list[Any]:
    """x2 before x10: digits compare as numbers."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", name)]


class UnsupportedError(SqlnbError, NotImplementedError):
    """What was asked is not available (yet) for this case: it exists on DuckDB but not on
    the engine or SQL dialect asked for, or an operation does not cover this kind of model
    (a search of mixed, text or per-group models); the message says what to do instead."""
