"""scikit-learn-compatible estimators backed by sqlnb.

Drop-in replacements for ``sklearn.naive_bayes``: same constructors, methods and fitted
attributes. The facade stages ``X`` (NumPy, DataFrame or SciPy sparse) into a private
in-memory DuckDB database, where the fit's arithmetic happens, and reads the fitted
parameters back. ``predict*`` of dense NumPy rows is computed here from the model's
parameters (``scoring.in_process``: one version read per call, the parameters read again
only when the model changed), with the same expressions as the SQL forms. Validation, errors and warnings are scikit-learn's own; the estimators
pass ``check_estimator``. A pickled estimator carries its model's statistics (small Arrow
tables), restored into a new in-memory database on load (see ``docs/sklearn.md``).

``partial_fit`` (and ``forget``, exact unlearning) upsert one more batch's statistics
into the model, with scikit-learn's rules: ``classes`` is required on the first call
(and, if given later, must be the same), and a label outside them is an error. One
documented difference: ``GaussianNB.epsilon_`` comes from the variance of all the rows
seen so far, so that ``partial_fit`` on batches gives the same model as ``fit`` on their
union; scikit-learn takes it from the latest batch only.

>>> from sklearn.datasets import load_iris
>>> from sqlnb.sklearn import GaussianNB
>>> X, y = load_iris(return_X_y=True)
>>> GaussianNB().fit(X, y).score(X, y) > 0.95
True
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

try:
    from sklearn import naive_bayes as _reference
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.utils.multiclass import unique_labels
    from sklearn.utils.validation import (
        _check_sample_weight,
        check_is_fitted,
        check_non_negative,
        validate_data,
    )
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "sqlnb.sklearn needs scikit-learn: pip install 'sqlnb[sklearn]'"
    ) from exc

from . import exchange, incremental, scoring
from .attributes import fitted_attributes
from .families import for_sklearn_estimator, make_family
from .model import NaiveBayes
from .validation import check_sample_weight

TARGET = "__sqlnb_target"
WEIGHT = "__sqlnb_weight"
ROW = "__sqlnb_row"


def _is_sparse(X: Any) -> bool:
    return hasattr(X, "tocoo") and hasattr(X, "nnz")


class _SqlnbNB(ClassifierMixin, BaseEstimator):
    """Shared flow: stage, fit in SQL, read attributes back; predict from the parameters.

    Each estimator keeps one private in-memory DuckDB connection for its life; pickling
    carries the model's statistics instead (see ``__getstate__``). An estimator's family
    is the one whose ``sklearn_estimator`` bears the estimator's class name.
    """

    _family: str = ""
    _accept_sparse: bool = False
    _dtype: Any = "numeric"
    _positive_only: bool = False  # X must be non-negative (scikit-learn's wording if not)
    _prior_param: str = "class_prior"  # the hyperparameter holding given class priors
    # scikit-learn's GaussianNB checks the sorted unique labels, the others y itself
    _check_sorted_labels: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._family = for_sklearn_estimator(cls.__name__) or cls._family

    # -------------------------------------------------------------- hooks
    def _hyperparameters(self) -> dict[str, Any]:
        return self.get_params(deep=False)

    def _read_attributes(self, model: NaiveBayes) -> None:
        """Set scikit-learn's fitted attributes from ``model``'s tables."""
        for key, value in fitted_attributes(model, self._y_dtype).items():
            setattr(self, key, value)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accept_sparse
        tags.input_tags.positive_only = self._positive_only
        return tags

    # -------------------------------------------------------------- validation
    def _check_X(self, X: Any, reset: bool) -> Any:
        """Validate X for predict (and for fit when y is checked separately)."""
        X = validate_data(
            self,
            X,
            reset=reset,
            accept_sparse="csr" if self._accept_sparse else False,
            dtype=self._dtype,
        )
        self._check_values(X)
        return X

    def _check_X_y(self, X: Any, y: Any, sample_weight: Any, reset: bool):
        """Validate X, y and sample_weight for fit, partial_fit and forget, as
        scikit-learn does (its checks, its messages)."""
        X, y = validate_data(
            self,
            X,
            y,
            reset=reset,
            accept_sparse="csr" if self._accept_sparse else False,
            dtype=self._dtype,
        )
        unique_labels(np.unique(y) if self._check_sorted_labels else y)
        self._check_values(X)
        if sample_weight is not None:
            # finite, not all zero, non-negative (sqlnb's rule), in scikit-learn's words;
            # then scikit-learn's own shape and broadcasting rules
            check_sample_weight(sample_weight)
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
        return X, y, sample_weight

    def _check_hyperparameters(self, n_classes: int, n_features: int) -> None:
        """The checks scikit-learn makes once the data is known, in its words (the
        parameters' types and ranges are checked by ``_parameter_constraints``)."""
        priors = getattr(self, self._prior_param, None)
        if priors is not None:
            self._check_priors(np.asarray(priors, dtype=np.float64), n_classes)
        alpha = getattr(self, "alpha", None)
        if alpha is not None and not np.isscalar(alpha):
            alpha = np.asarray(alpha)
            if alpha.shape[0] != n_features:
                raise ValueError(
                    "When alpha is an array, it should contains `n_features`. "
                    f"Got {alpha.shape[0]} elements instead of {n_features}."
                )
            if np.min(alpha) < 0:
                raise ValueError("All values in alpha must be greater than 0.")

    def _check_priors(self, priors: np.ndarray, n_classes: int) -> None:
        if priors.shape[0] != n_classes:
            raise ValueError("Number of priors must match number of classes.")

    def _check_values(self, X: Any) -> None:
        if self._positive_only:
            check_non_negative(X, f"{type(self).__name__} (input X)")

    # -------------------------------------------------------------- staging
    def _feature_names(self, n_features: int) -> list[str]:
        names = getattr(self, "feature_names_in_", None)
        if names is not None:
            return [str(n) for n in names]
        return [f"x{i}" for i in range(n_features)]

    def _dense_table(self, X: np.ndarray, names: list[str]) -> dict[str, Any]:
        return {name: X[:, i] for i, name in enumerate(names)}

    def _stage(self, X: Any, y=None, sample_weight=None):
        """X (and y, weights) as Arrow tables DuckDB scans in place."""
        names = self._feature_names(X.shape[1])
        if _is_sparse(X):
            coo = X.tocoo()
            entries = pa.table({
                ROW: pa.array(coo.row, pa.int64()),
                "feature_index": pa.array(coo.col, pa.int32()),
                "value": pa.array(coo.data, pa.float64()),
            })
            rows = {ROW: pa.array(np.arange(X.shape[0]), pa.int64())}
            if y is not None:
                rows[TARGET] = y
                if sample_weight is not None:
                    rows[WEIGHT] = sample_weight
            return names, {"entries": entries, "rows": pa.table(rows)}
        columns = self._dense_table(X, names)
        if y is not None:
            columns[TARGET] = y
            if sample_weight is not None:
                columns[WEIGHT] = sample_weight
        return names, {"dense": pa.table(columns)}

    def _connection(self) -> duckdb.DuckDBPyConnection:
        """The estimator's private database, opened on first use and kept."""
        con = getattr(self, "_con", None)
        if con is None:
            con = self._con = duckdb.connect()
        return con

    # -------------------------------------------------------------- fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None):
        """Fit on ``X``, ``y`` (and ``sample_weight``) with the statistics computed in SQL."""
        self._validate_params()
        X, y, sample_weight = self._check_X_y(X, y, sample_weight, reset=True)
        try:
            self._check_hyperparameters(len(np.unique(y)), X.shape[1])
        except ValueError:
            # as in scikit-learn, the failed fit has already taken the new classes (a
            # later partial_fit compares against them); the old model is gone
            self.classes_, self._model = np.unique(y), None
            raise
        model = NaiveBayes("model", con=self._connection(), family=self._family,
                           sql_macros=False, **self._hyperparameters())
        names, staged = self._stage(X, y, sample_weight)
        weight = WEIGHT if sample_weight is not None else None
        if "dense" in staged:
            model.fit(staged["dense"], TARGET, features=names, weight=weight)
        else:
            model.fit_sparse(staged["entries"], staged["rows"], TARGET, features=names,
                             weight=weight, row=ROW)
        self._model = model
        self._y_dtype = y.dtype
        self._float_dtype = X.dtype if X.dtype == np.float32 else np.dtype(np.float64)
        self._read_attributes(model)
        return self

    # -------------------------------------------------------------- incremental
    def partial_fit(self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None):
        """Fit on one more batch: the same result as ``fit`` on all batches together.

        ``classes`` (every label that can ever occur) is required on the first call.
        """
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
        self._read_attributes(self._model)
        return self

    def forget(self, X: Any, y: Any, sample_weight: Any = None):
        """Remove rows the estimator learned (exact unlearning); ``classes_`` stays.

        The result equals ``fit`` on the remaining rows, with every class still present
        (a class with no rows left keeps zero counts, as after ``partial_fit``).
        """
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
        self._read_attributes(model)
        return self

    # -------------------------------------------------------------- pickling
    def __getstate__(self) -> dict[str, Any]:
        """The parameters, fitted attributes and the model's statistics (Arrow tables);
        the DuckDB connection stays behind."""
        state = super().__getstate__()
        state = {k: v for k, v in state.items() if k not in ("_con", "_model")}
        model = self.__dict__.get("_model")
        if model is not None:
            state["_statistics"] = exchange.statistics(model)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore the statistics into a private in-memory DuckDB database."""
        state = dict(state)
        statistics = state.pop("_statistics", None)
        super().__setstate__(state)
        if statistics is not None:
            self._con = duckdb.connect()
            self._model = exchange.restore(self._con, "model", statistics, sql_macros=False)
            # the hyperparameters of the estimator (perhaps set since) shape its parameters
            self._model.family = make_family(self._family, **self._hyperparameters())

    def sqlnb_model(self) -> NaiveBayes | None:
        """The sqlnb model behind this estimator, once fitted; else None."""
        return getattr(self, "_model", None)

    # -------------------------------------------------------------- predict
    def _score(self, X: Any, output: str) -> np.ndarray:
        check_is_fitted(self, "_model")
        X = self._check_X(X, reset=False)
        model = self._model
        if not _is_sparse(X):
            scored = self._score_in_process(model, X, output)
            if scored is not None:
                return scored
        _, staged = self._stage(X)
        if "dense" in staged:
            scored = model.scored(staged["dense"], output, keep_input=False, arrow=True)
            if isinstance(scored, pa.Table):  # scored by a statement planned once
                result = {name: column.to_numpy() for name, column
                          in zip(scored.column_names, scored.columns)}
            else:
                result = scored.fetchnumpy()
        else:
            relation = model.score_sparse(staged["entries"], staged["rows"], output, row=ROW)
            result = relation.fetchnumpy()
            if output != "predict":
                return np.array(result["scores"].tolist(), dtype=np.float64).reshape(X.shape[0], -1)
        if output == "predict":
            values = result["prediction"]
            return np.asarray(values).astype(self.classes_.dtype, copy=False)
        columns = [c for c in result if c != ROW]
        return np.column_stack([np.asarray(result[c], dtype=np.float64) for c in columns])

    def _score_in_process(self, model: NaiveBayes, X: np.ndarray, output: str) -> Any:
        """``output`` of NumPy rows scored in this process from the model's parameters
        (``scoring.in_process``), read again only when the model's version changes: one
        one-row read per call checks it (another connection may have refitted the model).
        None when that form does not cover the model or the rows: SQL scores them."""
        scoring.refresh(model.context)
        found = scoring.in_process(model.context)
        if found is None:
            return None
        names = self._feature_names(X.shape[1])
        order = found.get("order")
        if order is None or order[0] != names:
            position = {name: i for i, name in enumerate(names)}
            if any(name not in position for name in found["names"]):
                return None
            order = found["order"] = (names, [position[name] for name in found["names"]])
        columns = order[1]
        scored = scoring.score_in_process(
            found, X if columns == list(range(X.shape[1])) else X[:, columns], output)
        if scored is None:
            return None
        if output == "predict":
            return np.asarray(scored).astype(self.classes_.dtype, copy=False)
        return scored

    def predict(self, X: Any) -> np.ndarray:
        return self._score(X, "predict")

    def predict_proba(self, X: Any) -> np.ndarray:
        return self._score(X, "proba")

    def predict_log_proba(self, X: Any) -> np.ndarray:
        return self._score(X, "log_proba")

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        return self._score(X, "joint")


class GaussianNB(_SqlnbNB):
    """Gaussian naive Bayes (see :class:`sklearn.naive_bayes.GaussianNB`)."""

    _parameter_constraints = _reference.GaussianNB._parameter_constraints
    _prior_param = "priors"
    _check_sorted_labels = True

    def __init__(self, *, priors=None, var_smoothing=1e-9):
        self.priors = priors
        self.var_smoothing = var_smoothing

    def _check_priors(self, priors: np.ndarray, n_classes: int) -> None:
        super()._check_priors(priors, n_classes)
        if not np.isclose(priors.sum(), 1.0):
            raise ValueError("The sum of the priors should be 1.")
        if np.any(priors < 0):
            raise ValueError("Priors must be non-negative.")

    def _read_attributes(self, model: NaiveBayes) -> None:
        super()._read_attributes(model)
        # scikit-learn keeps float32 input in float32 attributes
        dtype = getattr(self, "_float_dtype", np.dtype(np.float64))
        if dtype != np.float64:
            for key in ("theta_", "var_", "class_count_", "class_prior_"):
                setattr(self, key, getattr(self, key).astype(dtype))
            self.epsilon_ = dtype.type(self.epsilon_)

    def _score(self, X: Any, output: str) -> np.ndarray:
        result = super()._score(X, output)
        if output != "predict" and getattr(self, "_float_dtype", None) == np.float32:
            X_dtype = getattr(X, "dtype", None)
            if X_dtype == np.float32:  # as scikit-learn: float32 in, float32 out
                return result.astype(np.float32)
        return result


class _DiscreteNB(_SqlnbNB):
    _accept_sparse = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags


class MultinomialNB(_DiscreteNB):
    """Multinomial naive Bayes (see :class:`sklearn.naive_bayes.MultinomialNB`)."""

    _parameter_constraints = _reference.MultinomialNB._parameter_constraints
    _positive_only = True

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior


class ComplementNB(_DiscreteNB):
    """Complement naive Bayes (see :class:`sklearn.naive_bayes.ComplementNB`)."""

    _parameter_constraints = _reference.ComplementNB._parameter_constraints
    _positive_only = True

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None,
                 norm=False):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.norm = norm


class BernoulliNB(_DiscreteNB):
    """Bernoulli naive Bayes (see :class:`sklearn.naive_bayes.BernoulliNB`)."""

    _parameter_constraints = _reference.BernoulliNB._parameter_constraints

    def __init__(self, *, alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True,
                 class_prior=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior


class CategoricalNB(_SqlnbNB):
    """Categorical naive Bayes (see :class:`sklearn.naive_bayes.CategoricalNB`).

    As in scikit-learn, each feature holds integer codes 0..k-1 and a code above the
    largest one seen at fit is an error at predict.
    """

    _parameter_constraints = _reference.CategoricalNB._parameter_constraints
    _dtype = "int"
    _positive_only = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.classifier_tags.poor_score = True
        return tags

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None,
                 min_categories=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories

    def _hyperparameters(self) -> dict[str, Any]:
        return {**self.get_params(deep=False), "unseen": "error"}

    def _dense_table(self, X: np.ndarray, names: list[str]) -> dict[str, Any]:
        return {name: X[:, i].astype(np.int64) for i, name in enumerate(names)}

    def _check_X(self, X: Any, reset: bool) -> Any:
        X = super()._check_X(X, reset)
        sizes = getattr(self, "n_categories_", None)
        if not reset and sizes is not None and X.shape[0]:
            # a code beyond the fitted categories: scikit-learn's (NumPy's) IndexError
            for f, size in enumerate(sizes):
                largest = int(X[:, f].max())
                if largest >= size:
                    raise IndexError(
                        f"index {largest} is out of bounds for axis 1 with size {size}"
                    )
        return X


def _check_labels(y: np.ndarray, classes: np.ndarray) -> None:
    unique_y = np.unique(y)
    known = np.isin(unique_y, classes)
    if not np.all(known):
        raise ValueError(
            f"The target label(s) {unique_y[~known]} in y do not exist in the initial "
            f"classes {classes}"
        )
