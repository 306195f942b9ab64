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

from . import ownership, portable
from .attributes import to_sklearn
from .errors import (
    IncompatibleModelError,
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
)
from .families import for_sklearn_estimator, make_family
from .model import NaiveBayes

__all__ = ["from_sklearn", "restore", "statistics", "to_sklearn"]

ROLES = ("class_stats", "features", "feature_stats")
POSITION = "__sqlnb_position"


# ---------------------------------------------------------------------- copies
def statistics(model: NaiveBayes) -> dict[str, Any]:
    """The model's metadata and statistics tables (Arrow), enough to :func:`restore` it."""
    meta = model.meta
    tables = {}
    for role in ROLES:
        table = model.engine.relation(model.engine.render(
            "catalog/read_statistics.sql", t=model.tables, model=model.name, role=role)).to_arrow_table()
        # the stored row order, kept as a column: a copy inserts its rows in that order
        tables[role] = table.append_column(POSITION, pa.array(range(table.num_rows), pa.int64()))
    keep = ("family", "params", "target", "target_type", "weight", "features")
    return {"meta": {key: meta[key] for key in keep}, "tables": tables}


def restore(con: duckdb.DuckDBPyConnection, name: str, state: dict[str, Any], *,
            sql_macros: bool = True) -> NaiveBayes:
    """Write the statistics of :func:`statistics` as model ``name`` (replacing it), in
    one transaction, and return the model.

    The state may come from a pickle, so it is checked as an import checks an export
    (see :mod:`sqlnb.portable`): metadata, hyperparameters and statistics a fit would not
    write raise :class:`IncompatibleModelError` and leave the database unchanged."""
    meta, tables = _checked_state(state)
    try:
        family = make_family(meta["family"], **meta["params"])
    except (InvalidParameterError, InvalidDataError, TypeError, ValueError,
            OverflowError) as exc:
        raise _unusable(f"its family or hyperparameters are not valid ({exc})") from None
    model = NaiveBayes(name, con=con, family=family.name, sql_macros=sql_macros,
                       **family.params)
    engine = model.engine
    # before any read: a failed statement would abort the caller's transaction
    engine.refuse_open_transaction("restoring a model")
    sources = {role: engine.source(tables[role]) for role in ROLES}
    try:
        label_type = sources["class_stats"].columns.get("class")
        if label_type is None or label_type.replace(" ", "").upper() != \
                meta["target_type"].replace(" ", "").upper():
            raise _unusable(f"its class labels have type {label_type}, its metadata says "
                            f"{meta['target_type']}")
        source = {role: src.sql for role, src in sources.items()}
        with engine.transaction("restoring a model"):
            ownership.claim(model.context, ownership.names(model.name, "base", "macros"))
            try:
                model.pipeline.create(meta["target_type"])
                if POSITION in tables["class_stats"].column_names:
                    # an exact copy: the same rows in the same order (identical sums)
                    model.pipeline.run("update/copy_statistics.sql", sources=source,
                                       position=model.dialect.ident(POSITION))
                else:
                    # statistics built elsewhere (from_sklearn): folded in as a merge is
                    model.pipeline.run("update/copy_features.sql", source=source)
                    model.pipeline.run("update/merge_model.sql", source=source, sign=1)
                portable.check_statistics(model.context, meta["features"])
                model.pipeline.finish(meta["features"], meta["target"], meta["target_type"],
                                      meta["weight"])
            except (duckdb.Error, InvalidDataError, InvalidParameterError) as exc:
                raise _unusable(str(exc).splitlines()[0]) from None
    finally:
        ownership.done(model.context)
        for src in sources.values():
            engine.release(src)
    model.invalidate()
    return model


def _unusable(problem: str) -> IncompatibleModelError:
    return IncompatibleModelError(f"the model's statistics cannot be restored: {problem}")


def _checked_state(state: Any) -> tuple[dict[str, Any], dict[str, pa.Table]]:
    """The metadata and statistics tables of a state (perhaps unpickled), checked for shape
    and for metadata a fit writes."""
    try:
        meta, tables = state["meta"], state["tables"]
        assert isinstance(tables, dict)
        assert all(isinstance(tables[role], pa.Table) for role in ROLES)
    except (AssertionError, KeyError, TypeError):
        raise _unusable("the state has no metadata and statistics tables") from None
    portable.check_meta(meta)
    return meta, tables


# ---------------------------------------------------------------------- scikit-learn
def _sklearn_family(estimator: Any) -> str:
    for cls in type(estimator).__mro__:
        family = for_sklearn_estimator(cls.__name__)
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
    builder = {"moments": _moment_stats, "categories": _category_stats,
               "counts": _count_stats}[model.family.statistics_shape]
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


def _moment_stats(estimator: Any, classes: np.ndarray, names: list[str],
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


def _category_stats(estimator: Any, classes: np.ndarray, names: list[str],
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
