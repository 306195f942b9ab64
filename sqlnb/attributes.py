"""scikit-learn's fitted attributes of a sqlnb model, read from its tables.

One reader serves both directions of the scikit-learn facade: the estimators of
:mod:`sqlnb.sklearn` take their attributes from it after every fit, and
:meth:`sqlnb.NaiveBayes.to_sklearn` copies them onto a plain ``sklearn.naive_bayes``
estimator. Which attributes a family has is the family's own
:meth:`~sqlnb.families.Family.sklearn_attributes`.

>>> import numpy as np, sqlnb
>>> from sklearn.naive_bayes import GaussianNB
>>> estimator = GaussianNB().fit([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1])
>>> model = sqlnb.from_sklearn(estimator, name="nb")
>>> sorted(fitted_attributes(model, np.dtype(np.int64)))
['class_count_', 'class_prior_', 'classes_', 'epsilon_', 'theta_', 'var_']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .context import as_context
from .engines.dialects import Dialect
from .errors import InvalidParameterError, first_few
from .grouping import read_groups
from .pipeline import pipeline_of

if TYPE_CHECKING:  # pragma: no cover
    from .context import ModelContext


class Reader:
    """The rows of ``catalog/read_attributes.sql`` for one model, in scikit-learn's shapes."""

    def __init__(self, model: ModelContext, n_classes: int, n_features: int,
                 log_prior: np.ndarray) -> None:
        self.model, self.n_classes, self.n_features = model, n_classes, n_features
        self.log_prior = log_prior

    def rows(self, what: str, columns: tuple[str, ...] = ()) -> list[tuple]:
        engine = self.model.engine
        return engine.fetch(engine.render(f"catalog/read_attributes.sql#{what}", t=self.model.tables,
                                          columns=list(columns)))

    def matrix(self, *columns: str) -> list[np.ndarray]:
        """One class x feature array per column of the parameter (``p.``) or statistics
        (``s.``) table."""
        out = [np.zeros((self.n_classes, self.n_features)) for _ in columns]
        for row in self.rows("terms", columns):
            for k in range(len(columns)):
                out[k][row[0], row[1]] = row[2 + k]
        return out

    def first(self, column: str) -> Any:
        """The value of ``column`` in the first class x feature row."""
        return self.rows("terms", (column,))[0][2]

    def categories(self) -> list[tuple]:
        """(class index, feature index, category code, count, log_prob, n_categories)."""
        return self.rows("categories")


def fitted_attributes(model: Any, y_dtype: np.dtype) -> dict[str, Any]:
    """``classes_`` (labels of ``y_dtype``), ``class_count_`` and the family's own fitted
    attributes of ``model`` (a model or its context), as scikit-learn's estimator of the
    family has them."""
    model = as_context(model)
    reader = Reader(model, 0, len(model.meta["features"]), np.zeros(0))
    rows = reader.rows("classes")  # class_index, class, weight, log_prior
    labels = [r[1] for r in rows]
    if y_dtype.kind in "OUS":
        classes = np.array(labels, dtype=object if y_dtype.kind == "O" else None)
    else:
        classes = np.array(labels, dtype=y_dtype)
    reader.n_classes = len(rows)
    reader.log_prior = np.array([r[3] for r in rows], dtype=np.float64)
    return {"classes_": classes,
            "class_count_": np.array([r[2] for r in rows], dtype=np.float64),
            **model.family.sklearn_attributes(reader)}


def label_dtype(target_type: str, dialect: Dialect) -> np.dtype:
    """The NumPy dtype of labels stored with SQL type ``target_type``."""
    kind = dialect.kind(target_type)
    if kind == "bool":
        return np.dtype(bool)
    if kind in ("float", "decimal"):
        return np.dtype(np.float64)
    if kind == "integer":
        return np.dtype(np.int64)
    return np.dtype("U1")  # strings: numpy's own width, as np.unique(y) gives


def generated_names(names: list[str]) -> bool:
    """Names sqlnb made up for unnamed columns (f0, f1… or x0, x1…)."""
    return any(names == [f"{p}{i}" for i in range(len(names))] for p in ("f", "x"))


def to_sklearn(model: ModelContext) -> Any:
    """A fitted ``sklearn.naive_bayes`` estimator equal to ``model`` (see
    :meth:`sqlnb.NaiveBayes.to_sklearn`)."""
    from sklearn import naive_bayes

    meta = model.meta
    estimator_name = model.family.sklearn_estimator
    if estimator_name is None:  # a family per column has none either
        covered = "gaussian, multinomial, complement, bernoulli and categorical"
        raise InvalidParameterError(
            f"to_sklearn covers the {covered} families; model {model.name!r} is "
            f"{meta['family']!r}"
        )
    if model.reads_terms:
        raise InvalidParameterError(
            f"model {model.name!r} is a text or long-input model: scikit-learn has no "
            "estimator that holds its vocabulary; score it with sqlnb"
        )
    if read_groups(model):
        raise InvalidParameterError(
            f"model {model.name!r} is a per-group model (fit with group_by); a scikit-learn "
            "estimator holds one model"
        )
    names = [f["name"] for f in meta["features"]]
    if model.family.per_category:
        codings = {r[0]: r[3]
                   for r in pipeline_of(model).fetch("catalog/read_meta.sql#features", source=model.tables)}
        values = [n for n in names if codings.get(n) != "integer"]
        if values:
            raise InvalidParameterError(
                f"to_sklearn needs integer category codes 0..k-1, as CategoricalNB does; "
                f"feature{'s' if len(values) > 1 else ''} {first_few(values)} of model "
                f"{model.name!r} hold other values (encode them with OrdinalEncoder and refit)"
            )
    estimator_class = getattr(naive_bayes, estimator_name)
    # scikit-learn's hyperparameters only: sqlnb's own (missing, unseen, max_categories,
    # value_columns) have no counterpart in the estimator
    accepted = estimator_class().get_params()
    estimator = estimator_class(**{k: v for k, v in meta["params"].items() if k in accepted})
    estimator.n_features_in_ = len(names)
    if not generated_names(names):
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
    attributes = fitted_attributes(model, label_dtype(meta["target_type"], model.dialect))
    for key, value in attributes.items():
        setattr(estimator, key, value)
    return estimator
