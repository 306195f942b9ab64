"""scikit-learn-compatible estimators backed by sqlnb.

Drop-in replacements for ``sklearn.naive_bayes``: same constructors, methods and fitted
attributes. The facade stages ``X`` (NumPy, DataFrame or SciPy sparse) into a private
in-memory DuckDB database, where all the arithmetic happens, and reads the fitted
parameters back.

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
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.utils.validation import check_is_fitted, validate_data
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "sqlnb.sklearn needs scikit-learn: pip install 'sqlnb[sklearn]'"
    ) from exc

from ._sklearn_incremental import IncrementalMixin, _check_y
from .model import NaiveBayes
from .templates import render

TARGET = "__sqlnb_target"
WEIGHT = "__sqlnb_weight"
ROW = "__sqlnb_row"


def _is_sparse(X: Any) -> bool:
    return hasattr(X, "tocoo") and hasattr(X, "nnz")


class _SqlnbNB(IncrementalMixin, ClassifierMixin, BaseEstimator):
    """Shared flow: stage, fit in SQL, read attributes back; predict by scoring SQL."""

    _family: str = ""
    _accept_sparse: bool = False
    _dtype: Any = "numeric"

    # -------------------------------------------------------------- hooks
    def _hyperparameters(self) -> dict[str, Any]:
        return self.get_params(deep=False)

    def _read_attributes(self, model: NaiveBayes) -> None:
        raise NotImplementedError

    # -------------------------------------------------------------- staging
    def _check_X(self, X: Any, reset: bool) -> Any:
        X = validate_data(
            self,
            X,
            reset=reset,
            accept_sparse="csr" if self._accept_sparse else False,
            dtype=self._dtype,
        )
        if self._family == "categorical" and np.any(X < 0):
            raise ValueError("Negative values in data passed to CategoricalNB (input X)")
        return X

    def _feature_names(self, n_features: int) -> list[str]:
        names = getattr(self, "feature_names_in_", None)
        if names is not None:
            return [str(n) for n in names]
        return [f"x{i}" for i in range(n_features)]

    def _dense_table(self, X: np.ndarray, names: list[str]) -> dict[str, Any]:
        return {name: X[:, i] for i, name in enumerate(names)}

    def _stage(self, con: duckdb.DuckDBPyConnection, X: Any, y=None, sample_weight=None):
        """Register X (and y, weights) with DuckDB; Arrow columns are scanned in place."""
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

    # -------------------------------------------------------------- fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None):
        """Fit on ``X``, ``y`` (and ``sample_weight``) with the statistics computed in SQL."""
        X = self._check_X(X, reset=True)
        y, sample_weight = _check_y(X, y, sample_weight)
        con = duckdb.connect()
        model = NaiveBayes("model", con=con, family=self._family, sql_macros=False,
                           **self._hyperparameters())
        names, staged = self._stage(con, X, y, sample_weight)
        weight = WEIGHT if sample_weight is not None else None
        if "dense" in staged:
            model.fit(staged["dense"], TARGET, features=names, weight=weight)
        else:
            model.fit_sparse(staged["entries"], staged["rows"], TARGET, features=names,
                             weight=weight, row=ROW)
        self._con, self._model = con, model
        self._y_dtype = y.dtype
        self._read_common(model)
        self._read_attributes(model)
        return self

    def _fetch(self, model: NaiveBayes, what: str, columns: tuple[str, ...] = ()) -> list[tuple]:
        sql = render("read_attributes.sql", t=model.tables, what=what, columns=list(columns))
        return model.con.execute(sql).fetchall()

    def _matrix(self, model: NaiveBayes, columns: tuple[str, ...]) -> list[np.ndarray]:
        rows = self._fetch(model, "terms", columns)
        n_classes, n_features = len(self.classes_), self.n_features_in_
        out = [np.zeros((n_classes, n_features)) for _ in columns]
        for row in rows:
            for k in range(len(columns)):
                out[k][row[0], row[1]] = row[2 + k]
        return out

    def _read_common(self, model: NaiveBayes) -> None:
        rows = self._fetch(model, "classes")
        labels = [r[1] for r in rows]
        if self._y_dtype.kind in "OUS":
            self.classes_ = np.array(labels, dtype=object if self._y_dtype.kind == "O" else None)
        else:
            self.classes_ = np.array(labels, dtype=self._y_dtype)
        self.class_count_ = np.array([r[2] for r in rows], dtype=np.float64)
        self._log_prior = np.array([r[3] for r in rows], dtype=np.float64)

    # -------------------------------------------------------------- predict
    def _score(self, X: Any, output: str) -> np.ndarray:
        check_is_fitted(self, "_model")
        X = self._check_X(X, reset=False)
        model = self._model
        _, staged = self._stage(self._con, X)
        if "dense" in staged:
            relation = model._score(staged["dense"], output, keep_input=False)
            result = relation.fetchnumpy()
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

    _family = "gaussian"

    def __init__(self, *, priors=None, var_smoothing=1e-9):
        self.priors = priors
        self.var_smoothing = var_smoothing

    def _read_attributes(self, model: NaiveBayes) -> None:
        self.theta_, self.var_ = self._matrix(model, ("p.theta", "p.var"))
        eps = self._fetch(model, "terms", ("p.epsilon",))
        self.epsilon_ = float(eps[0][2])
        self.class_prior_ = (
            np.asarray(self.priors, dtype=np.float64)
            if self.priors is not None
            else np.exp(self._log_prior)
        )


class _DiscreteNB(_SqlnbNB):
    _accept_sparse = True

    def _read_attributes(self, model: NaiveBayes) -> None:
        self.class_log_prior_ = self._log_prior
        self.feature_count_, self.feature_log_prob_ = self._matrix(
            model, ("s.count", "p.log_prob")
        )


class MultinomialNB(_DiscreteNB):
    """Multinomial naive Bayes (see :class:`sklearn.naive_bayes.MultinomialNB`)."""

    _family = "multinomial"

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior


class ComplementNB(_DiscreteNB):
    """Complement naive Bayes (see :class:`sklearn.naive_bayes.ComplementNB`)."""

    _family = "complement"

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None,
                 norm=False):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.norm = norm

    def _read_attributes(self, model: NaiveBayes) -> None:
        super()._read_attributes(model)
        self.feature_all_ = self._matrix(model, ("p.feature_all",))[0][0]


class BernoulliNB(_DiscreteNB):
    """Bernoulli naive Bayes (see :class:`sklearn.naive_bayes.BernoulliNB`)."""

    _family = "bernoulli"

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

    _family = "categorical"
    _dtype = "int"

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

    def _read_attributes(self, model: NaiveBayes) -> None:
        self.class_log_prior_ = self._log_prior
        rows = self._fetch(model, "categories")
        n_classes, n_features = len(self.classes_), self.n_features_in_
        sizes = np.zeros(n_features, dtype=np.int64)
        for row in rows:
            sizes[row[1]] = row[5]
        self.n_categories_ = sizes
        self.category_count_ = [np.zeros((n_classes, s)) for s in sizes]
        self.feature_log_prob_ = [np.zeros((n_classes, s)) for s in sizes]
        for class_index, feature_index, category, count, log_prob, _ in rows:
            self.category_count_[feature_index][class_index, category] = count
            self.feature_log_prob_[feature_index][class_index, category] = log_prob
