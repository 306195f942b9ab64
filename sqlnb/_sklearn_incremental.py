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

import numpy as np
from sklearn.utils.multiclass import unique_labels

from . import incremental
from .families import make_family
from .model import NaiveBayes


class IncrementalMixin:
    """``partial_fit`` and ``forget`` for the sqlnb scikit-learn estimators."""

    def partial_fit(self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None):
        """Fit on one more batch: the same result as ``fit`` on all batches together.

        ``classes`` (every label that can ever occur) is required on the first call.
        """
        from .sklearn import ROW, TARGET, WEIGHT

        self._validate_params()
        known = getattr(self, "classes_", None)  # scikit-learn's notion of a first call
        if known is None and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        if classes is not None:
            declared = unique_labels(classes)
            if known is not None and not np.array_equal(known, declared):
                raise ValueError(
                    f"`classes={classes!r}` is not the same as on last call to partial_fit, "
                    f"was: {known!r}"
                )
        else:
            declared = known
        fitted = getattr(self, "_model", None) is not None
        X, y, sample_weight = self._check_X_y(X, y, sample_weight, reset=not fitted)
        _check_labels(y, declared)
        self._check_hyperparameters(len(declared), X.shape[1])
        if declared.dtype.kind in "iub":
            y = y.astype(declared.dtype, copy=False)  # keep the class column's type
        if fitted:
            model = self._model
            # the hyperparameters of this call shape the derived parameters
            model.family = make_family(self._family, **self._hyperparameters())
        else:
            model = NaiveBayes("model", con=self._connection(), family=self._family,
                               sql_macros=False, **self._hyperparameters())
        names, staged = self._stage(X, y, sample_weight)
        weight = WEIGHT if sample_weight is not None else None
        if "dense" in staged:
            model.partial_fit(staged["dense"], TARGET, features=names, weight=weight,
                              classes=list(declared))
        else:
            model.partial_fit_sparse(staged["entries"], staged["rows"], TARGET, features=names,
                                     weight=weight, row=ROW, classes=list(declared))
        if not fitted:
            self._model = model
            self._y_dtype = declared.dtype
            self._float_dtype = X.dtype if X.dtype == np.float32 else np.dtype(np.float64)
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
        X, y, sample_weight = self._check_X_y(X, y, sample_weight, reset=False)
        _check_labels(y, self.classes_)
        if self.classes_.dtype.kind in "iub":
            y = y.astype(self.classes_.dtype, copy=False)  # keep the class column's type
        model = self._model
        names, staged = self._stage(X, y, sample_weight)
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


def _check_labels(y: np.ndarray, classes: np.ndarray) -> None:
    unique_y = np.unique(y)
    known = np.isin(unique_y, classes)
    if not np.all(known):
        raise ValueError(
            f"The target label(s) {unique_y[~known]} in y do not exist in the initial "
            f"classes {classes}"
        )
