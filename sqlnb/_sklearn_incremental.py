"""``partial_fit`` (and ``forget``) for the scikit-learn facade.

A mixin of :class:`sqlnb.sklearn._SqlnbNB`: each call stages the batch into the
estimator's private DuckDB database and upserts its statistics into the model tables
(:func:`sqlnb.incremental.partial_fit`), then reads the fitted attributes back.

Rules are scikit-learn's: ``classes`` is required on the first call (and, if given later,
must be the same), and a label outside them is an error. One documented difference:
``GaussianNB.epsilon_`` comes from the variance of all the rows seen so far, so that
``partial_fit`` on batches gives the same model as ``fit`` on their union; scikit-learn
takes it from the latest batch only.
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
from sklearn.utils.multiclass import unique_labels

from . import incremental
from .families import make_family
from .model import NaiveBayes
from .validation import check_sample_weight


class IncrementalMixin:
    """``partial_fit`` and ``forget`` for the sqlnb scikit-learn estimators."""

    def partial_fit(self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None):
        """Fit on one more batch: the same result as ``fit`` on all batches together.

        ``classes`` (every label that can ever occur) is required on the first call.
        """
        from .sklearn import ROW, TARGET, WEIGHT

        fitted = getattr(self, "_model", None) is not None
        if not fitted and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        if classes is not None:
            declared = unique_labels(classes)
            if fitted and not np.array_equal(self.classes_, declared):
                raise ValueError(
                    f"`classes={classes!r}` is not the same as on last call to partial_fit, "
                    f"was: {self.classes_!r}"
                )
        else:
            declared = self.classes_
        X = self._check_X(X, reset=not fitted)
        y, sample_weight = _check_y(X, y, sample_weight)
        _check_labels(y, declared)
        if declared.dtype.kind in "iub":
            y = y.astype(declared.dtype, copy=False)  # keep the class column's type
        if fitted:
            con, model = self._con, self._model
            # the hyperparameters of this call shape the derived parameters
            model.family = make_family(self._family, **self._hyperparameters())
        else:
            con = duckdb.connect()
            model = NaiveBayes("model", con=con, family=self._family, **self._hyperparameters())
        names, staged = self._stage(con, X, y, sample_weight)
        weight = WEIGHT if sample_weight is not None else None
        if "dense" in staged:
            model.partial_fit(staged["dense"], TARGET, features=names, weight=weight,
                              classes=list(declared))
        else:
            model.partial_fit_sparse(staged["entries"], staged["rows"], TARGET, features=names,
                                     weight=weight, row=ROW, classes=list(declared))
        if not fitted:
            self._con, self._model = con, model
            self._y_dtype = declared.dtype
        self._read_common(self._model)
        self._read_attributes(self._model)
        return self

    def forget(self, X: Any, y: Any, sample_weight: Any = None):
        """Remove rows the estimator learned (exact unlearning); ``classes_`` stays.

        The result equals ``fit`` on the remaining rows, with every class still present
        (a class with no rows left keeps zero counts, as after ``partial_fit``).
        """
        from sklearn.utils.validation import check_is_fitted

        from .sklearn import ROW, TARGET, WEIGHT

        check_is_fitted(self, "_model")
        X = self._check_X(X, reset=False)
        y, sample_weight = _check_y(X, y, sample_weight)
        _check_labels(y, self.classes_)
        if self.classes_.dtype.kind in "iub":
            y = y.astype(self.classes_.dtype, copy=False)  # keep the class column's type
        model = self._model
        names, staged = self._stage(self._con, X, y, sample_weight)
        weight = WEIGHT if sample_weight is not None else None
        keep = list(self.classes_)
        if "dense" in staged:
            incremental.forget(model, staged["dense"], TARGET, features=names, weight=weight,
                               keep_classes=keep)
        else:
            incremental.partial_fit_sparse(model, staged["entries"], staged["rows"], TARGET,
                                           features=names, weight=weight, row=ROW, sign=-1,
                                           keep_classes=keep)
        self._read_common(model)
        self._read_attributes(model)
        return self


def _check_y(X: Any, y: Any, sample_weight: Any) -> tuple[np.ndarray, np.ndarray | None]:
    y = np.asarray(y)
    if y.ndim != 1:
        y = y.ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: "
            f"[{X.shape[0]}, {y.shape[0]}]"
        )
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight)
        if sample_weight.shape[0] != X.shape[0]:
            raise ValueError("sample_weight.shape does not match X.shape[0]")
    return y, sample_weight


def _check_labels(y: np.ndarray, classes: np.ndarray) -> None:
    unique_y = np.unique(y)
    known = np.isin(unique_y, classes)
    if not np.all(known):
        raise ValueError(
            f"The target label(s) {unique_y[~known]} in y do not exist in the initial "
            f"classes {classes}"
        )
