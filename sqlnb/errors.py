"""Exceptions raised by sqlnb.

Every error sqlnb raises on purpose derives from :class:`SqlnbError`, so callers can catch
one type. The subclasses also derive from the matching built-in (``ValueError``,
``KeyError``…) so code written against scikit-learn's exceptions keeps working.
"""

from __future__ import annotations


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


class TransactionError(SqlnbError, RuntimeError):
    """A write was refused because the connection has an open transaction of the caller's."""


class NameConflictError(SqlnbError, ValueError):
    """A relation the model needs has a name already taken by something the model does not own."""


class SkippedRowsWarning(UserWarning):
    """Fit left some rows out (their target is NULL); the warning says how many."""


class CoercedValuesWarning(UserWarning):
    """A categorical feature arrived with another type than at fit (a float-coded copy of
    an integer column, 0/1 for a BOOLEAN one); its values were compared by value."""


def describe_problems(problems: list[tuple]) -> str:
    """The message of a failed data check: each (feature, problem) found, in one line."""
    lines = [f"feature {feature!r} {problem}" for feature, problem in problems]
    return "cannot fit: " + "; ".join(lines)
