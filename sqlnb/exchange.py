"""A model as plain statistics: copies, pickling and exchange with scikit-learn.

A sqlnb model *is* its statistics tables (class counts, per-feature sums or moments,
category counts) plus a metadata row, so a copy needs nothing more:

* :func:`statistics` reads them as small Arrow tables (what a pickled scikit-learn
  facade estimator carries);
* :func:`restore` writes them back into a database through the same path as
  :func:`sqlnb.merge` (create the tables, upsert the statistics, derive the parameter
  views), in one transaction;
* :func:`from_sklearn` rebuilds the statistics of a fitted scikit-learn naive Bayes
  estimator from its fitted attributes, and :func:`to_sklearn` does the reverse.

>>> import numpy as np, sqlnb
>>> from sklearn.naive_bayes import MultinomialNB
>>> X, y = np.array([[2, 0], [3, 1], [0, 4], [1, 3]]), np.array(["a", "a", "b", "b"])
>>> model = sqlnb.from_sklearn(MultinomialNB().fit(X, y), name="words")
>>> model.classes_, model.features_
(['a', 'b'], ['f0', 'f1'])
>>> model.to_sklearn().predict(X).tolist()
['a', 'a', 'b', 'b']
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from . import ownership
from .dialect import Dialect
from .errors import InvalidParameterError, NotFittedError, first_few
from .model import NaiveBayes

ROLES = ("class_stats", "features", "feature_stats")
POSITION = "__sqlnb_position"
# scikit-learn class name -> sqlnb family
SKLEARN_FAMILIES = {
    "GaussianNB": "gaussian",
    "MultinomialNB": "multinomial",
    "ComplementNB": "complement",
    "BernoulliNB": "bernoulli",
    "CategoricalNB": "categorical",
}


# ---------------------------------------------------------------------- copies
def statistics(model: NaiveBayes) -> dict[str, Any]:
    """The model's metadata and statistics tables (Arrow), enough to :func:`restore` it."""
    meta = model.meta
    tables = {}
    for role in ROLES:
        table = model.engine.relation(model.engine.render(
            "read_statistics.sql", t=model.tables, model=model.name, role=role)).to_arrow_table()
        # the stored row order, kept as a column: a copy inserts its rows in that order
        tables[role] = table.append_column(POSITION, pa.array(range(table.num_rows), pa.int64()))
    keep = ("family", "params", "target", "target_type", "weight", "features")
    return {"meta": {key: meta[key] for key in keep}, "tables": tables}


def restore(con: duckdb.DuckDBPyConnection, name: str, state: dict[str, Any], *,
            sql_macros: bool = True) -> NaiveBayes:
    """Write the statistics of :func:`statistics` as model ``name`` (replacing it), in
    one transaction, and return the model."""
    meta = state["meta"]
    model = NaiveBayes(name, con=con, family=meta["family"], sql_macros=sql_macros,
                       **meta["params"])
    engine = model.engine
    # before any read: a failed statement would abort the caller's transaction
    engine.refuse_open_transaction("restoring a model")
    sources = {role: engine.source(state["tables"][role]) for role in ROLES}
    try:
        source = {role: src.sql for role, src in sources.items()}
        with engine.transaction("restoring a model"):
            ownership.claim(model, ownership.names(model.name, "base", "macros"))
            model.pipeline.create(meta["target_type"])
            if POSITION in state["tables"]["class_stats"].column_names:
                # an exact copy: the same rows in the same order (identical sums)
                model.pipeline.run("copy_statistics.sql", sources=source,
                           position=model.dialect.ident(POSITION))
            else:
                # statistics built elsewhere (from_sklearn): folded in as a merge is
                model.pipeline.run("copy_features.sql", source=source)
                model.pipeline.run("merge_model.sql", source=source, sign=1)
            model.pipeline.finish(meta["features"], meta["target"], meta["target_type"],
                              meta["weight"])
    finally:
        ownership.done(model)
        for src in sources.values():
            engine.release(src)
    model.invalidate()
    return model


# ---------------------------------------------------------------------- scikit-learn
def _sklearn_family(estimator: Any) -> str:
    for cls in type(estimator).__mro__:
        family = SKLEARN_FAMILIES.get(cls.__name__)
        if family is not None and cls.__module__.split(".")[0] in ("sklearn", "sqlnb"):
            return family
    raise InvalidParameterError(
        f"from_sklearn takes a fitted GaussianNB, MultinomialNB, ComplementNB, BernoulliNB "
        f"or CategoricalNB (from sklearn.naive_bayes or sqlnb.sklearn), got "
        f"{type(estimator).__name__}"
    )


def _class_type(classes: np.ndarray) -> str:
    kind = classes.dtype.kind
    if kind in "iu":
        return "BIGINT"
    if kind == "f":
        return "DOUBLE"
    if kind == "b":
        return "BOOLEAN"
    if all(isinstance(c, str) for c in classes.tolist()):
        return "VARCHAR"
    raise InvalidParameterError(
        "from_sklearn needs class labels that are all numbers, all booleans or all strings"
    )


def _rows(count: np.ndarray) -> np.ndarray:
    """Row counts for summed sample weights (exact when the estimator had no weights)."""
    return np.where(count > 0, np.maximum(np.rint(count), 1), 0).astype(np.int64)


def from_sklearn(estimator: Any, *, con: duckdb.DuckDBPyConnection | None = None,
                 name: str, target: str = "target") -> NaiveBayes:
    """Store a fitted scikit-learn naive Bayes estimator as the sqlnb model ``name``.

    The statistics are rebuilt from the fitted attributes (``class_count_``,
    ``theta_``/``var_``/``epsilon_``, ``feature_count_``, ``category_count_``), so the
    model scores as the estimator does, from Python or from SQL (macros, ``to_sql``), and
    grows with ``partial_fit``. Features are named by ``feature_names_in_``, else
    ``f0`` … ``f<n-1>``; ``con=None`` opens a private in-memory database.
    """
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError
    from sklearn.utils.validation import check_is_fitted

    family = _sklearn_family(estimator)
    try:
        check_is_fitted(estimator)
    except SklearnNotFittedError as exc:
        raise NotFittedError(f"from_sklearn needs a fitted estimator: {exc}") from None
    fitted = getattr(estimator, "sqlnb_model", lambda: None)()
    if fitted is not None:  # a sqlnb.sklearn estimator: exact copy
        state = statistics(fitted)
        state["meta"]["target"] = target
        return restore(duckdb.connect() if con is None else con, name, state)
    params = dict(estimator.get_params(deep=False))
    classes = np.asarray(estimator.classes_)
    class_type = _class_type(classes)
    labels = pa.array(classes.tolist())
    n_features = int(estimator.n_features_in_)
    names = getattr(estimator, "feature_names_in_", None)
    names = [str(n) for n in names] if names is not None else [f"f{i}" for i in range(n_features)]
    model = NaiveBayes(name, con=con, family=family, **params)
    options = model.family.feature_options(n_features)
    per_category = model.family.per_category  # integer category codes, as CategoricalNB's
    feature_type = "BIGINT" if per_category else "DOUBLE"
    features = pa.table({
        "feature_index": pa.array(range(n_features), pa.int32()),
        "feature": pa.array(names, pa.string()),
        "type": pa.array([feature_type] * n_features, pa.string()),
        "alpha": pa.array([o["alpha"] for o in options], pa.float64()),
        "coding": pa.array(["integer" if per_category else None] * n_features,
                           pa.string()),
        "min_categories": pa.array([o["min_categories"] for o in options], pa.int64()),
    })
    weight = np.asarray(estimator.class_count_, dtype=np.float64)
    class_stats = pa.table({"class": labels, "n": pa.array(_rows(weight)),
                            "weight": pa.array(weight)})
    builder = {"gaussian": _gaussian_stats, "categorical": _categorical_stats}.get(
        family, _count_stats)
    feature_stats = builder(estimator, classes, names, weight)
    state = {
        "meta": {"family": family, "params": model.family.params, "target": target,
                 "target_type": class_type, "weight": None,
                 "features": [{"name": n, "type": feature_type} for n in names]},
        "tables": {"class_stats": class_stats, "features": features,
                   "feature_stats": feature_stats},
    }
    return restore(model.con, name, state)


def _grid(classes: np.ndarray, names: list[str]) -> tuple[pa.Array, pa.Array]:
    """Class and feature columns of a class x feature table, class-major."""
    class_col = pa.array(np.repeat(np.arange(len(classes)), len(names)))
    labels = pa.array(classes.tolist()).take(class_col)
    return labels, pa.array(names * len(classes), pa.string())


def _gaussian_stats(estimator: Any, classes: np.ndarray, names: list[str],
                    weight: np.ndarray) -> pa.Table:
    theta = np.asarray(estimator.theta_, dtype=np.float64)
    var = np.maximum(np.asarray(estimator.var_, dtype=np.float64) - float(estimator.epsilon_), 0)
    w = np.repeat(weight, len(names))
    n = _rows(w)
    labels, feature = _grid(classes, names)
    # without sample weights the unweighted twins equal the weighted moments, so epsilon_
    # (var_smoothing times the largest variance of X) comes back as the estimator had it
    return pa.table({"class": labels, "feature": feature, "n": pa.array(n),
                     "weight": pa.array(w), "mean": pa.array(theta.ravel()),
                     "m2": pa.array((var * weight[:, None]).ravel()),
                     "n_mean": pa.array(theta.ravel()),
                     "n_m2": pa.array((var * n.reshape(var.shape)).ravel())})


def _count_stats(estimator: Any, classes: np.ndarray, names: list[str],
                 weight: np.ndarray) -> pa.Table:
    count = np.asarray(estimator.feature_count_, dtype=np.float64)
    w = np.repeat(weight, len(names))
    labels, feature = _grid(classes, names)
    return pa.table({"class": labels, "feature": feature, "n": pa.array(_rows(w)),
                     "count": pa.array(count.ravel()), "weight": pa.array(w)})


def _categorical_stats(estimator: Any, classes: np.ndarray, names: list[str],
                       weight: np.ndarray) -> pa.Table:
    class_index, feature, category, count = [], [], [], []
    for f, counts in enumerate(estimator.category_count_):
        counts = np.asarray(counts, dtype=np.float64)
        for c in range(len(classes)):
            for k in range(counts.shape[1]):
                class_index.append(c)
                feature.append(names[f])
                category.append(str(k))
                count.append(counts[c, k])
    count_array = np.asarray(count, dtype=np.float64)
    return pa.table({
        "class": pa.array(classes.tolist()).take(pa.array(class_index, pa.int64())),
        "feature": pa.array(feature, pa.string()),
        "category": pa.array(category, pa.string()),
        "n": pa.array(_rows(count_array)),
        "count": pa.array(count_array),
    })


def _label_dtype(target_type: str, dialect: Dialect) -> np.dtype:
    kind = dialect.kind(target_type)
    if kind == "bool":
        return np.dtype(bool)
    if kind in ("float", "decimal"):
        return np.dtype(np.float64)
    if kind == "integer":
        return np.dtype(np.int64)
    return np.dtype("U1")  # strings: numpy's own width, as np.unique(y) gives


def _generated_names(names: list[str]) -> bool:
    """Names sqlnb made up for unnamed columns (f0, f1… or x0, x1…)."""
    return any(names == [f"{p}{i}" for i in range(len(names))] for p in ("f", "x"))


def to_sklearn(model: NaiveBayes) -> Any:
    """A fitted ``sklearn.naive_bayes`` estimator equal to ``model`` (see
    :meth:`NaiveBayes.to_sklearn`)."""
    from sklearn import naive_bayes

    from . import sklearn as facade
    from .grouping import read_groups

    meta = model.meta
    family = meta["family"]
    if model.family.composite or family not in SKLEARN_FAMILIES.values():
        raise InvalidParameterError(
            f"to_sklearn covers the gaussian, multinomial, complement, bernoulli and "
            f"categorical families; model {model.name!r} is {family!r}"
        )
    if model.stored_input():
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
        codings = {r[0]: r[3] for r in model.pipeline.fetch("model_features.sql", source=model.tables)}
        values = [n for n in names if codings.get(n) != "integer"]
        if values:
            raise InvalidParameterError(
                f"to_sklearn needs integer category codes 0..k-1, as CategoricalNB does; "
                f"{_first_few(values)} of model {model.name!r} hold other values "
                "(encode them with OrdinalEncoder and refit)"
            )
    name = next(k for k, v in SKLEARN_FAMILIES.items() if v == family)
    # scikit-learn's hyperparameters only: sqlnb's own (missing, unseen, max_categories,
    # value_columns) have no counterpart in the estimator
    accepted = getattr(facade, name)().get_params()
    params = {k: v for k, v in meta["params"].items() if k in accepted}
    reader = getattr(facade, name)(**params)
    reader.n_features_in_ = len(names)
    if not _generated_names(names):
        reader.feature_names_in_ = np.asarray(names, dtype=object)
    reader.adopt(model, _label_dtype(meta["target_type"], model.dialect))
    estimator = getattr(naive_bayes, name)(**params)
    for key, value in vars(reader).items():
        if key.endswith("_") and not key.startswith("_"):
            setattr(estimator, key, value)
    return estimator


def _first_few(names: list[str]) -> str:
    return f"feature{'s' if len(names) > 1 else ''} {first_few(names)}"
