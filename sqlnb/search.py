"""Cross-validated hyperparameter search inside the database, in two scans.

``NaiveBayes.search(source, target, param_grid=..., cv=5)`` does what scikit-learn's
``GridSearchCV`` does for a naive Bayes estimator, without pulling rows into Python:

1. **One statistics scan.** The fold is one more GROUP BY key: a per-group fit with the
   fold as the group (see :mod:`sqlnb.grouping`) gives, in one scan, each fold's
   statistics and the pooled ones. Fold k's training statistics are the pooled ones minus
   fold k's (sums subtract exactly; Gaussian moments by the pairwise update run
   backwards), written into a scratch model's per-group tables.
2. **No rescan per candidate.** The hyperparameters a search may vary (``alpha``,
   ``var_smoothing``, ``priors``, ``fit_prior``, ``class_prior``, ``force_alpha``,
   ``norm``, ``min_categories``, ``unseen``) only change the parameter views: each
   candidate re-creates the views over the same statistics and reads its small
   parameters. ``binarize`` and ``missing`` do change the statistics: a grid over them
   runs the two scans once per distinct value.
3. **One scoring scan.** Every labelled row is scored by its own fold's held-out model for
   every candidate in one SELECT, and the metrics (scikit-learn's ``accuracy``,
   ``neg_log_loss``, ``f1_macro``, ``f1_weighted``, ``balanced_accuracy``) are aggregated
   per candidate and fold in SQL.

``refit=True`` then fits the model on every row with the best candidate (one more scan).
With ``group_by`` the fold is the last of the group columns: each (group, fold) trains on
its group's rows in the other folds, in the same two scans. A mixed model
(``family="auto"``) gets step 1 and 2 once per part (the columns of one family, one scan
each); each candidate's per-fold model is then the sum of the parts', scored in one scan.

A text column (``text=``) gets its own two scans (``sql/search/search_text.sql``): per fold,
class and term the statistics of one tokenising scan; each fold's vocabulary and
statistics from its training documents (as ``GridSearchCV`` refits ``CountVectorizer``
per training set); every candidate's coefficients from the family's parameter views with
the fold as the group; one scoring scan that joins each document's terms with its fold's
coefficients. Grids over the text options that change the terms cost two scans per
distinct combination.

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i % 7 + 3 * (i % 2) AS DOUBLE) "
...                 "AS x, i % 3 AS fold FROM range(60) r(i)")
>>> model = sqlnb.NaiveBayes("demo", con=con)
>>> search = model.search("t", "y", param_grid={"var_smoothing": [1e-9, 1.0]}, cv="fold")
>>> search.best_params_
{'var_smoothing': 1e-09}
>>> [c for c in search.cv_results_.columns if c.startswith("mean")]
['mean_test_score']
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import numbers
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from . import grouping, ownership
from .context import RELATIONS
from .engines.dialects import DUCKDB
from .engines.source import Source
from .errors import (
    EmptyInputError,
    InvalidDataError,
    InvalidParameterError,
    UnknownColumnError,
    UnsupportedError,
)
from .families import Family, make_family
from .parts import column_parts, fit_within, input_spec, part_family
from .pipeline import pipeline_of
from .scoring import with_chunks
from .spec import jsonable
from .templates import render
from .text import TERM_FAMILIES, Analyzer, check_re2
from .validation import check_label_type, check_weight_type, check_weights

if TYPE_CHECKING:  # pragma: no cover
    from .context import ModelContext

# The refit a search asks of its caller: the best candidate's family, the fit's arguments.
Refit = tuple[Family, dict[str, Any]]


SCORERS = ("accuracy", "neg_log_loss", "f1_macro", "f1_weighted", "balanced_accuracy")
FOLD = "__sqlnb_fold"
ROUTE = "__sqlnb_route"  # a per-group text search: the number of the row's group
# Hyperparameters that change the statistics, not only the parameter views: a search over
# them costs its two scans once per distinct value.
STATISTICS_PARAMETERS = ("binarize", "missing")
# The Gaussian scoring expands each squared deviation around a centre shared by every
# class and fold; past this many half-variances between a class mean and the centre the
# expansion would cost digits, and the compiled form (exact squared deviations) is used.
MAX_EXPANDED = 1e4
EPS = 2.220446049250313e-16  # numpy.finfo(float).eps: log_loss clips probabilities to it


class SearchResult:
    """The outcome of :meth:`sqlnb.NaiveBayes.search`, with ``GridSearchCV``'s attributes.

    ``cv_results_`` is a lazy DuckDB relation (a Spark DataFrame on Spark), one row per
    candidate in grid order;
    ``best_params_``, ``best_score_`` and ``best_index_`` follow the ``refit`` metric (the
    first scorer unless ``refit`` names one); ``best_estimator_`` is the refitted model
    (``None`` without ``refit``); ``n_splits_`` the number of folds.
    """

    def __init__(self, cv_results: Any, candidates: list[dict[str, Any]],
                 metric: str, n_splits: int, rows: list[tuple]) -> None:
        self.cv_results_ = cv_results
        self.candidates = candidates
        self.scorer_ = metric
        self.n_splits_ = n_splits
        ranks = [rank for rank, _ in rows]
        means = [mean for _, mean in rows]
        self.best_index_ = ranks.index(min(ranks))
        self.best_params_ = dict(candidates[self.best_index_])
        self.best_score_ = means[self.best_index_]
        self.best_estimator_: Any = None  # the model, once refitted (sqlnb.NaiveBayes)

    def __repr__(self) -> str:
        return (f"SearchResult(best_params_={self.best_params_!r}, "
                f"best_score_={self.best_score_!r}, n_splits_={self.n_splits_})")


def parameter_grid(param_grid: Any) -> list[dict[str, Any]]:
    """The candidates of a grid in scikit-learn's ``ParameterGrid`` order (names sorted,
    the last varying fastest; a list of grids one after the other)."""
    grids = [param_grid] if isinstance(param_grid, dict) else param_grid
    if not isinstance(grids, (list, tuple)) or not grids:
        raise InvalidParameterError(
            "param_grid must be a dict of {name: [values]} or a non-empty list of such dicts"
        )
    candidates = []
    for grid in grids:
        if not isinstance(grid, dict) or not grid:
            raise InvalidParameterError(
                f"param_grid needs at least one hyperparameter with values, got {grid!r}"
            )
        names = sorted(grid)
        for name in names:
            values = grid[name]
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
                raise InvalidParameterError(
                    f"param_grid[{name!r}] must be a list of values, got {values!r}"
                )
            if len(list(values)) == 0:
                raise InvalidParameterError(f"param_grid[{name!r}] has no values to try")
        for values in itertools.product(*(list(grid[name]) for name in names)):
            candidates.append(dict(zip(names, values)))
    return candidates


def _scorers(scoring: Any) -> tuple[list[str], bool]:
    """The scorer names, and whether there is a single one (GridSearchCV's ``score``)."""
    single = isinstance(scoring, str)
    names = [scoring] if single else list(scoring) if isinstance(scoring, (list, tuple)) else None
    if not names or any(not isinstance(n, str) for n in names):
        raise InvalidParameterError(
            f"scoring must be a scorer name or a list of them ({', '.join(SCORERS)})"
        )
    unknown = [n for n in names if n not in SCORERS]
    if unknown:
        raise InvalidParameterError(
            f"unknown scorer(s) {unknown}: choose among {', '.join(SCORERS)}"
        )
    if len(set(names)) != len(names):
        raise InvalidParameterError("scoring names a scorer twice")
    return names, single


def _check_candidates(model: ModelContext, candidates: list[dict[str, Any]], n_features: int
                      ) -> list[Any]:
    """Each candidate's family (model's hyperparameters overridden by the candidate),
    validated before anything is written."""
    name = model.family.name
    families = []
    for candidate in candidates:
        for key in candidate:
            if key not in model.family.defaults:
                raise InvalidParameterError(
                    f"{name} naive Bayes has no hyperparameter {key!r}; it takes "
                    f"{', '.join(model.family.defaults)}"
                )
            if key in model.family.layout_params:
                raise InvalidParameterError(
                    f"a search of a mixed model cannot vary {key!r}, which decides the "
                    "parts' columns and statistics: set it on the model and search the "
                    "other hyperparameters (e.g. alpha, var_smoothing)"
                )
        family = make_family(name, **{**model.family.params, **candidate})
        family.feature_options(n_features)  # alpha per feature, min_categories: checked now
        families.append(family)
    return families


def _statistics_groups(candidates: list[dict[str, Any]]) -> dict[tuple, list[int]]:
    """The candidates' indices by their values of the hyperparameters that change the
    statistics (``binarize``, ``missing``), in order of first appearance."""
    groups: dict[tuple, list[int]] = {}
    for g, candidate in enumerate(candidates):
        setting = tuple((key, candidate[key]) for key in STATISTICS_PARAMETERS
                        if key in candidate)
        groups.setdefault(setting, []).append(g)
    return groups


def search(model: ModelContext, source: Any, target: str, *, features: list[str] | None = None,
           weight: str | None = None, text: str | None = None,
           group_by: str | list[str] | None = None, param_grid: Any,
           cv: int | str = 5, scoring: str | list[str] | tuple[str, ...] = "accuracy",
           refit: bool | str = True, **text_options: Any
           ) -> tuple[SearchResult, Refit | None]:
    """Cross-validate every candidate of ``param_grid``; see :meth:`NaiveBayes.search`.

    Returns the result and, unless ``refit`` is False, what the refit is: the best
    candidate's family and the arguments of the fit on every row (the caller fits)."""
    if text_options and text is None:
        raise InvalidParameterError(
            f"text options ({', '.join(sorted(text_options))}) need text=<column>"
        )
    if text is not None and features is not None:
        raise InvalidParameterError("a text search takes text=<column> and no features")
    group_names = [] if group_by is None else [group_by] if isinstance(group_by, str) \
        else list(group_by)
    scorers, single = _scorers(scoring)
    if isinstance(refit, str):
        if refit not in scorers:
            raise InvalidParameterError(
                f"refit={refit!r} must name one of the scorers {scorers}"
            )
        refit_metric = refit
    elif isinstance(refit, bool):
        refit_metric = scorers[0]
    else:
        raise InvalidParameterError(f"refit must be True, False or a scorer name, got {refit!r}")
    candidates = parameter_grid(param_grid)
    if isinstance(cv, bool) or not isinstance(cv, (numbers.Integral, str)):
        raise InvalidParameterError(
            f"cv must be a number of folds (>= 2) or the name of a fold column, got {cv!r}"
        )
    if isinstance(cv, numbers.Integral) and cv < 2:
        raise InvalidParameterError(
            f"cv={cv} folds: cross-validation needs at least 2 folds"
        )
    model.engine.refuse_open_transaction("search")
    rolls_back = model.engine.capabilities.transactions
    if not rolls_back:
        _refuse_on_spark(model, cv)
    if text is not None:
        return _search_text(model, source, target, text, weight, candidates, cv, scorers,
                            single, refit, refit_metric, text_options, group_names)
    dialect = model.dialect
    src = model.engine.source(source)
    try:
        columns = src.columns
        if FOLD in columns:
            raise InvalidParameterError(
                f"the source has a column {FOLD!r}, a name search keeps for itself: rename it"
            )
        if isinstance(cv, str) and cv not in columns:
            raise UnknownColumnError(
                f"fold column {cv!r} is not in the source (columns: {', '.join(columns)})"
            )
        if not isinstance(target, str) or target not in columns:
            raise UnknownColumnError(f"target column {target!r} is not in the source")
        if isinstance(cv, str) and cv in group_names:
            raise InvalidParameterError(f"the fold column {cv!r} cannot also be a group column")
        if features is None:
            fold_column = cv if isinstance(cv, str) else None
            features = [c for c in columns
                        if c not in (target, weight, fold_column, *group_names)]
        elif isinstance(cv, str) and cv in features:
            raise InvalidParameterError(f"the fold column {cv!r} cannot also be a feature")
        families = _check_candidates(model, candidates, len(features))
        hashed = [dialect.ident(c) for c in [target, *(features or []), weight] if c]
        fold_src = Source(
            sql=model.engine.render("search/search_folds.sql", source=src.sql,
                                    n_folds=cv if isinstance(cv, int) else None,
                                    fold_column=dialect.ident(cv) if isinstance(cv, str)
                                    else None, hashed=hashed).strip(),
            columns={**columns, FOLD: columns[cv] if isinstance(cv, str) else "INTEGER"})
        splits: list[tuple[int, list[tuple]]] = [(g, []) for g in range(len(candidates))]
        # candidates that share the statistics share their two scans: one pair of scans
        # per distinct value of the hyperparameters that change the statistics
        for setting, members in _statistics_groups(candidates).items():
            scored = _cross_validate(model, fold_src, [families[g] for g in members], setting,
                                     cv, target, weight, columns, features,
                                     "neg_log_loss" in scorers, group_names)
            for g, (_, scores) in zip(members, scored):
                splits[g] = (g, scores)
    finally:
        model.engine.release(src)
    result = _search_result(model, candidates, splits, scorers, single, refit_metric,
                            len(splits[0][1]))
    if refit is False:
        return result, None
    best = result.best_params_
    return result, (make_family(model.family.name, **{**model.family.params, **best}),
                    {"features": features, "weight": weight, "group_by": group_by})


def _refuse_on_spark(model: ModelContext, cv: int | str) -> None:
    """What a search on an engine without transactions (Spark) does not do yet."""
    if not isinstance(cv, str):
        raise UnsupportedError(
            f"cv={cv!r}: on {model.dialect.title}, cv must name a fold column (the folds "
            "DuckDB assigns by a hash of each row have no Spark equivalent): add one, e.g. "
            "pmod(hash(id), 5) AS fold, and pass cv='fold'")


_scratch_names = itertools.count()


def _scratch_name(model: ModelContext) -> str:
    """The name of a search's scratch model: never rolled back on an engine without
    transactions, so unique to the process and the search (a user's names never start so)."""
    if model.engine.capabilities.transactions:
        return f"__sqlnb_search_{model.name}"
    return f"__sqlnb_search_{os.getpid()}_{next(_scratch_names)}_{model.name}"


@contextlib.contextmanager
def _scratch_scope(scratch: ModelContext) -> Iterator[list[tuple[str, str]]]:
    """The block in which a search's scratch model lives: a transaction that is always
    rolled back, or on an engine without transactions a block at whose end (an error
    too) the scratch model is dropped with the relations the block lists in the yielded
    list, as (kind, name) pairs."""
    extra: list[tuple[str, str]] = []
    if scratch.engine.capabilities.transactions:
        with scratch.engine.rolled_back("search"):
            yield extra
        return
    try:
        yield extra
    finally:
        ownership.done(scratch)
        with scratch.engine.transaction("search"):
            ownership.release(scratch, ownership.every_name(scratch.name)
                              + sorted(ownership.owned(scratch)))
            ownership.drop_scratch(scratch)
        if extra:
            scratch.run("catalog/drop_relations.sql", relations=[
                {"kind": kind, "name": scratch.engine.table(name)} for kind, name in extra])


def _search_result(model: ModelContext, candidates: list[dict[str, Any]],
                   splits: list[tuple[int, list[tuple]]], scorers: list[str], single: bool,
                   refit_metric: str, n_folds: int) -> SearchResult:
    """The search's answer over the candidates' split scores (``score`` columns when one
    scorer was asked for by name alone, as GridSearchCV names them)."""
    keys = ["score"] if single else scorers
    key = keys[scorers.index(refit_metric)]
    relation, best = _results_relation(model, candidates, splits, scorers, keys, key)
    return SearchResult(relation, candidates, refit_metric, n_folds, best)


def _check_folds(folds: list[Any], cv: int | str, rows: str) -> None:
    """Refuse a search whose labelled ``rows`` fall in too few folds."""
    if isinstance(cv, int) and len(folds) < cv:
        raise EmptyInputError(
            f"with cv={cv}, {cv - len(folds)} fold(s) got no labelled {rows}: use fewer "
            f"folds or more {rows}"
        )
    if len(folds) < 2:
        raise InvalidParameterError(
            f"the fold column {cv!r} has {len(folds)} fold(s) with labelled {rows}: "
            "cross-validation needs at least 2"
        )


def _held_out(scratch: ModelContext, cv: int | str, extra: list[tuple[str, str]] | None = None
              ) -> tuple[list[Any], list[dict[str, Any]], dict[str, Any]]:
    """The folds with labelled rows, the group columns (the fold last) and the template
    context of the scratch model, whose per-group statistics become the held-out ones:
    those of every labelled row (of the group) outside the fold."""
    groups = grouping.read_groups(scratch)
    t = grouping.group_tables(scratch, groups)
    context = grouping.group_context(scratch, t)
    folds = [row[0] for row in pipeline_of(scratch).fetch("search/search_read.sql#folds", **context)]
    _check_folds(folds, cv, "rows")
    if len(groups) > 1:  # per-group models: each group is trained without each fold
        lonely = pipeline_of(scratch).fetch("search/search_read.sql#single_fold_groups", **context)
        if lonely:
            raise EmptyInputError(
                f"the labelled rows of group(s) {[tuple(g) for g in lonely]} all fall in one "
                "fold, so no rows are left to train on when it is held out: use more rows "
                "per group, fewer folds, or leave those groups out"
            )
    kind = scratch.family.statistics_shape  # moments, categories or counts
    # in place: the scratch model's statistics become the training ones (DuckDB, rolled
    # back); else the parameter views read the training tables, and a copy of the features
    # (which a candidate may rewrite), all dropped with the scratch model
    in_place = scratch.engine.capabilities.transactions
    names = {role: f"__sqlnb_training_{role}_{scratch.name}"
             for role in ("classes", "features", "feature_list")}
    pipeline_of(scratch).run(
        "search/search_training.sql", kind=kind, pooled=scratch.tables, in_place=in_place,
        training_classes=scratch.engine.table(names["classes"]),
        training_features=scratch.engine.table(names["features"]), **context)
    if not in_place:
        extra = [] if extra is None else extra
        extra += [("TABLE", name) for name in names.values()]
        features = scratch.engine.table(names["feature_list"])
        scratch.engine.execute(scratch.engine.render(
            "catalog/versions.sql#copy", table=context["t"]["features"],
            into=features))
        context = {**context, "t": {**context["t"], "features": features,
                                    "class_stats": scratch.engine.table(names["classes"]),
                                    "feature_stats": scratch.engine.table(names["features"])}}
    return folds, groups, context


def _cross_validate(model: ModelContext, src: Source, families: list[Any], setting: tuple,
                    cv: int | str, target: str, weight: str | None, columns: dict[str, str],
                    features: list[str], log_loss: bool, group_names: list[str]
                    ) -> list[tuple[int, list[tuple]]]:
    """The candidates that share the statistics (``setting``): each part of the model (its
    family over some columns, :func:`sqlnb.parts.column_parts`) gets the held-out statistics
    and every candidate's parameters of a scratch model of its family (one statistics scan
    per part); each candidate's class model per fold is the parts' sum, as a fitted model
    of parts is scored, and one scoring scan scores every candidate. Per candidate, its
    split scores in fold order (``log_loss``: whether to compute the probabilities that
    ``neg_log_loss`` needs)."""
    dialect = model.dialect
    base = make_family(model.family.name, **{**model.family.params, **dict(setting)})
    parts = column_parts(base, columns, features, dialect)
    several = len(parts) > 1
    # per part: its family, its features and, per candidate, the class models by key
    by_part: list[tuple[Family, list[str], list[dict[tuple, dict[Any, dict[str, Any]]]]]] = []
    complete = False
    for part, part_features in parts:
        sub = part_family(base, part)
        name = f"{_scratch_name(model)}_{part}" if several else _scratch_name(model)
        scratch = model.renamed(name, family=sub, sql_macros=False, scoring="auto")
        try:
            # the fold is the last group column, after the user's groups (each part keyed
            # alike)
            spec = input_spec(scratch, src, target, part_features, weight,
                              [*group_names, FOLD])
            # the scratch model lives in a transaction that is always rolled back, or (no
            # transactions) is dropped at the end
            with _scratch_scope(scratch) as extra:
                # scan 1: each fold's statistics and the pooled ones
                with model.engine.transaction("search"):
                    fit_within(scratch, src, spec)
                folds, groups, context = _held_out(scratch, cv, extra)
                flow = pipeline_of(scratch)
                if not by_part:  # the classes and keys: the same rows in every part
                    # the pooled model's classes in class-index order (numpy.unique's)
                    labels = [row[0] for row in flow.fetch("search/search_read.sql#labels",
                                                           pooled=scratch.tables)]
                    for family in families:  # as a fit checks them
                        family.check_priors(len(labels))
                    # the held-out models' keys, (group..., fold), in order
                    keys = [tuple(row) for row in flow.fetch("search/search_read.sql#keys",
                                                             **context)]
                    target_type = scratch.meta["target_type"]
                    key_types = [g["type"] for g in groups]
                if not several:
                    # no missing value anywhere (the pooled statistics say so): no
                    # missing-value terms in the parameters as data
                    complete = flow.fetch("search/search_read.sql#complete",
                                          pooled=scratch.tables,
                                          n_features=len(part_features))[0][0]
                specs = _feature_specs(columns, part_features, sub.per_category, dialect)
                # (several parts: each part's constant carries the log prior, read too)
                by_part.append((sub, part_features, _candidate_models(
                    scratch, [part_family(f, part) for f in families], groups, context,
                    specs, len(part_features), priors=families if several else None,
                    extra=extra)))
        finally:
            ownership.done(scratch)
    label_literals = [dialect.lit(label, target_type) for label in labels]
    shape = {name: sub.statistics_shape for sub, names, _ in by_part for name in names}
    # floating-point columns of the numeric families: NaN becomes NULL (missing)
    cleaned = [{"column": dialect.ident(name), "double": columns[name].upper() == "DOUBLE",
                "guard": dialect.kind(columns[name]) == "float"
                and shape[name] != "categories"} for name in features]
    key_columns = [g["column"] for g in groups]
    # a hashed fold is never NULL; the user's fold and group columns may be
    nullable_keys = key_columns[:-1] if isinstance(cv, int) else key_columns
    # folds 0..k-1 and no groups (cv=int, or such a fold column): the fold gives the
    # position in the held-out models' order without a CASE
    consecutive = keys == [(k,) for k in range(len(keys))] and all(
        type(key[0]) is int for key in keys)
    key_literals = [[dialect.lit(value, sql_type) for value, sql_type in zip(key, key_types)]
                    for key in keys]
    context = {"model": model.name, "family_name": base.name, "family_template": base.template,
               "source": src.sql, "target": dialect.ident(target), "features": cleaned,
               "weight": dialect.ident(weight) if weight else None, "eps": EPS,
               "labels": label_literals, "log_loss": log_loss, "keys": key_literals,
               "key_columns": key_columns, "nullable_keys": nullable_keys,
               "consecutive": consecutive}
    # one part: its parameters as data where the family allows (list lambdas and bound
    # lists: DuckDB's)
    arrays = _array_parameters(by_part[0][0], [{k: m.get(k, {}) for k in keys}
                                               for m in by_part[0][2]],
                               labels, complete, len(features)) \
        if not several and model.engine.capabilities.list_lambdas else None
    if arrays is not None:
        candidates = [{"classes": [{"label": label, "jll": DUCKDB.ident(f"__sqlnb_jll_{g}_{i}"),
                                    **lists}
                                   for i, (label, lists) in enumerate(zip(label_literals,
                                                                          classes))],
                       "max": DUCKDB.ident(f"__sqlnb_max_{g}")}
                      for g, classes in enumerate(arrays["candidates"])]
        # scan 2, parameters as data: each row's fold picks its held-out parameters
        rows = model.engine.connection.execute(render(
            "search/search_score.sql", **context, candidates=candidates, arrays=arrays,
            complete=complete,
            any_float=any(f["guard"] for f in cleaned) and not complete),
            arrays["values"]).fetchall()
        return _splits(rows, folds, len(families))
    rendered = []
    for g, family in enumerate(families):
        classes = []
        for i, label in enumerate(labels):
            per_fold = []
            for position, key in enumerate(keys, start=1):
                class_models = [models[g].get(key, {}).get(label) for _, _, models in by_part]
                if class_models[0] is None:  # the fold's training rows lack the class
                    continue
                per_fold.append({"position": position,
                                 "model": _class_model(family, parts, class_models, dialect)})
            classes.append({"label": label_literals[i], "folds": per_fold,
                            "jll": dialect.ident(f"__sqlnb_jll_{g}_{i}")})
        rendered.append({"classes": classes, "p": family.params,
                         "max": dialect.ident(f"__sqlnb_max_{g}")})
    # scan 2: every row by its fold's held-out model, for every candidate
    rows = model.engine.fetch(model.engine.render(
        "search/search_score.sql", **context, candidates=rendered, arrays=None))
    return _splits(rows, folds, len(families))


def _class_model(family: Family, parts: list[tuple[str, list[str]]],
                 class_models: list[Any], dialect: Any) -> dict[str, Any]:
    """One fold's held-out model of a class for the compiled scoring statement: the parts'
    class models summed, as :func:`sqlnb.mixed.compile_mixed` composes a fitted model of
    several parts (a model of one part is its class model)."""
    if len(parts) == 1:
        return with_chunks(_scoring_terms(class_models[0], dialect))
    # each part's constant carries the log prior once: keep one of them
    combined: dict[str, Any] = {
        "constant": math.fsum(m["constant"] for m in class_models)
        - (len(parts) - 1) * class_models[0]["log_prior"],
        "parts": [{"template": part_family(family, part).template,
                   "p": part_family(family, part).params,
                   "c": {"constant": 0.0, "terms": _scoring_terms(m, dialect)["terms"]}}
                  for (part, _), m in zip(parts, class_models)]}
    combined["chunks"] = [combined]  # the parts are one sum
    return combined


def _splits(rows: list[tuple], folds: list[Any], n_candidates: int
            ) -> list[tuple[int, list[tuple]]]:
    """The scoring statement's rows (candidate, fold, scores…) as each candidate's split
    scores in fold order."""
    splits: dict[int, list[tuple]] = {g: [] for g in range(n_candidates)}
    position = {fold: k for k, fold in enumerate(folds)}
    for candidate, fold, *scores in rows:
        splits[candidate].append((position[fold], *scores))
    return [(g, [s[1:] for s in sorted(splits[g])]) for g in range(n_candidates)]


def _candidate_models(scratch: ModelContext, families: list[Any], groups: list[dict[str, Any]],
                      context: dict[str, Any], specs: list[dict[str, Any]], n_features: int,
                      priors: list[Any] | None = None,
                      extra: list[tuple[str, str]] | None = None
                      ) -> list[dict[tuple, dict[Any, dict[str, Any]]]]:
    """Per candidate, each (group and) fold's held-out classes by label with their constant
    and scoring terms, as :func:`sqlnb.grouping.group_models` reads one model's.

    Candidates that share the per-feature options the features table holds (all of them
    unless a grid varies a per-feature ``alpha`` or ``min_categories``) get their parameter
    views, one pair named after each, in one statement, and are read in three: a handful of
    statements instead of four per candidate. ``priors``: each candidate's family whose
    ``prior_list()`` and ``fit_prior()`` give the priors (a mixed model's, for its parts);
    the classes then also carry their ``log_prior``."""
    runs: list[tuple[list[dict[str, Any]], list[int]]] = []
    for g, family in enumerate(families):
        rows = [{**o, **f} for f, o in zip(specs, family.feature_options(n_features))]
        if runs and runs[-1][0] == rows:
            runs[-1][1].append(g)
        else:
            runs.append((rows, [g]))
    order = {f["name"]: i for i, f in enumerate(scratch.meta["features"])}
    flow = pipeline_of(scratch)
    models: list[dict[tuple, dict[Any, dict[str, Any]]]] = [{} for _ in families]
    for rows, members in runs:
        family = families[members[0]]
        # (into the features table the parameter views read: see _held_out)
        flow.run("search/search_features.sql", features=rows, t=context["t"])
        named = []
        for g in members:
            t = dict(context["t"])
            for role in ("class_params", "feature_params"):
                t[role] = scratch.engine.table(f"{scratch.name}_{role}_{g}")
                if extra is not None:  # (dropped with the scratch model)
                    extra.append(("VIEW", f"{scratch.name}_{role}_{g}"))
            prior = families[g] if priors is None else priors[g]
            named.append({"t": t, "p": families[g].params, "priors": prior.prior_list(),
                          "fit_prior": prior.fit_prior()})
        flow.run("search/search_params.sql#views", candidates=named, **context)
        classes = flow.fetch("search/search_params.sql#classes", candidates=named, **context)
        constants: dict[int, dict[int, float]] = {}
        for position, class_index, constant in flow.fetch(
                "search/search_params.sql#constants", candidates=named, **context):
            constants.setdefault(position, {})[class_index] = constant
        log_priors: dict[tuple[int, int], float] = {}
        if priors is not None:
            log_priors = {(position, class_index): log_prior
                          for position, class_index, log_prior in flow.fetch(
                              "search/search_params.sql#priors", candidates=named, **context)}
        terms: dict[int, list[tuple]] = {}
        for position, *row in flow.fetch("search/search_params.sql#terms",
                                          candidates=named, **context):
            terms.setdefault(position, []).append(tuple(row))
        for position, g in enumerate(members):
            by_class = family.read_terms(terms.get(position, []),
                                         family.scoring_parameters[1:])
            for class_index, label, *values in classes:
                models[g].setdefault(tuple(values), {})[label] = {
                    "constant": constants[position][class_index],
                    "terms": sorted(by_class[class_index].values(),
                                    key=lambda term: order[term["name"]]),
                    "log_prior": log_priors.get((position, class_index)),
                }
    return models


def _array_parameters(family: Any, models: list[dict[tuple, dict[Any, dict[str, Any]]]],
                      labels: list[Any], complete: bool, n_features: int
                      ) -> dict[str, Any] | None:
    """Every candidate's held-out parameters per fold and class, for the scoring statement
    that keeps them as data (``None``: the compiled form, one literal per term).

    A row's joint log-likelihood for a candidate and class is ``constant + weights . x``.
    For multinomial, complement, bernoulli and poisson ``x`` holds the row's values; for
    gaussian it holds the values ``v`` less a centre shared by every class and fold (the
    mean of the class means), then their squares, and the weights are ``2 a t`` and
    ``-a`` (``a = 1 / (2 var)``, ``t`` the class mean less the centre): the expanded
    ``-a (v - t)^2``. So ``x`` is built once per row, for every class and candidate.
    A class mean more than ``MAX_EXPANDED`` half-variances from the centre would lose
    digits in that expansion: ``None`` then. ``fallback . missing`` takes back what a
    missing value must not count. Without missing values (``complete``) there is no
    fallback. ``weights`` and ``fallback`` are bound lists (``$n``), so the statement
    grows with folds x candidates x classes, not with features. Poisson's ``-log(x!)`` is
    left out: the same for every class of a row, it changes neither predictions nor
    probabilities.
    """
    # the family's joint log-likelihood from parameters as data: distance (gaussian),
    # linear or counts (poisson); None keeps the compiled form, one literal per term
    kind = family.array_kind
    if kind is None or family.params.get("missing", "ignore") != "ignore":
        return None
    values: list[Any] = []

    def bind(value: list[float]) -> int:
        values.append(value)
        return len(values)

    def finite(numbers: list[float]) -> bool:
        return all(math.isfinite(v) for v in numbers)

    centre: list[float] = []  # gaussian: per feature, the mean of every fold's class means
    if kind == "distance":
        means = [[float(t["theta"]) for t in class_model["terms"]]
                 for by_label in models[0].values() for class_model in by_label.values()]
        centre = [math.fsum(column) / len(column) for column in zip(*means)]
    candidates = []
    for by_fold in models:
        classes = []
        for label in labels:
            constants: list[float | None] = []
            weight_lists: list[list[float] | None] = []
            fallbacks: list[list[float] | None] = []
            for key in by_fold:
                model = by_fold[key].get(label)
                if model is None:  # a class the fold's training rows never saw: a NULL
                    constants.append(None)  # constant (list_dot_product refuses NULLs)
                    weight_lists.append([0.0] * (2 * n_features if kind == "distance"
                                                 else n_features))
                    fallbacks.append([0.0] * n_features)
                    continue
                terms = model["terms"]
                if kind == "distance":
                    if any(not t["var"] > 0 for t in terms):
                        return None  # a zero variance: the compiled form's division
                    # -a (v - t)^2 = -a t^2 + 2 a t v - a v^2, v and t centred
                    a = [0.5 / t["var"] for t in terms]
                    offsets = [float(t["theta"]) - c for t, c in zip(terms, centre)]
                    if any(ai * o * o > MAX_EXPANDED for ai, o in zip(a, offsets)):
                        return None  # the expanded square would lose digits: compiled form
                    weights = [2 * ai * o for ai, o in zip(a, offsets)] + [-ai for ai in a]
                    fallback = [0.5 * math.log(2 * math.pi * t["var"]) + ai * o * o
                                for t, ai, o in zip(terms, a, offsets)]
                    constant = float(model["constant"]) - math.fsum(
                        ai * o * o for ai, o in zip(a, offsets))
                elif kind == "counts":
                    weights = [float(t["coef"]) for t in terms]
                    fallback = [float(t["rate"]) for t in terms]
                    constant = float(model["constant"]) - math.fsum(fallback)
                else:
                    weights = [float(t["coef"]) for t in terms]
                    fallback = [-float(t.get("log_neg_prob", 0.0)) for t in terms]
                    constant = float(model["constant"])
                if not (finite(weights) and finite(fallback) and math.isfinite(constant)):
                    return None  # infinite logs (alpha = 0): the compiled form's arithmetic
                constants.append(constant)
                weight_lists.append(weights)
                fallbacks.append(fallback)
            if kind == "distance":  # lists in key order, indexed by the row's position
                classes.append({"constants": bind(constants), "weights": bind(weight_lists),
                                "fallback": None if complete else bind(fallbacks)})
            else:  # one constant list per key, picked in a CASE (see search_score.sql)
                classes.append({"folds": [
                    {"position": position, "constant": DUCKDB.lit(constant),
                     "weights": bind(weights), "fallback": None if complete else bind(fallback)}
                    for position, (constant, weights, fallback)
                    in enumerate(zip(constants, weight_lists, fallbacks), start=1)
                    if constant is not None]})
        candidates.append(classes)
    binarize = family.batch_options().get("binarize")
    return {"kind": kind, "values": values, "candidates": candidates,
            "centre": [DUCKDB.lit(c) for c in centre], "binarize": binarize}


def _feature_specs(columns: dict[str, str], features: list[str],
                   categorical: bool, dialect: Any = DUCKDB) -> list[dict[str, Any]]:
    """The features as ``NaiveBayes.fit`` records them (categories of integer columns are
    codes 0..k-1)."""
    specs = []
    for name in features:
        coding = "integer" if dialect.kind(columns[name]) == "integer" else "value"
        specs.append({"name": name, "type": columns[name],
                      "coding": coding if categorical else None})
    return specs


def _scoring_terms(class_model: dict[str, Any], dialect: Any = DUCKDB) -> dict[str, Any]:
    """A fold's class model with terms that read the scoring statement's columns (where
    NaN is already NULL)."""
    terms = [{**term, "column": dialect.ident(term["name"]), "guard": False}
             for term in class_model["terms"]]
    return {"constant": class_model["constant"], "terms": terms}


def _results_relation(model: ModelContext, candidates: list[dict[str, Any]],
                      splits: list[tuple[int, list[tuple]]], scorers: list[str],
                      keys: list[str], key: str) -> tuple[Any, list[tuple]]:
    """``cv_results_``: a lazy relation over the split scores (a few numbers per candidate),
    and its (rank, mean) of the metric ``key`` per candidate, read now."""
    dialect = model.dialect
    names = sorted({name for c in candidates for name in c})
    n_splits = len(splits[0][1])
    param_columns = [dialect.ident(f"param_{name}") for name in names]
    score_index = {name: SCORERS.index(name) for name in scorers}
    metrics, split_columns = [], []
    for scorer, name in zip(scorers, keys):
        columns = [dialect.ident(f"split{k}_test_{name}") for k in range(n_splits)]
        split_columns += columns
        metrics.append({"splits": columns, "mean": dialect.ident(f"mean_test_{name}"),
                        "std": dialect.ident(f"std_test_{name}"),
                        "rank": dialect.ident(f"rank_test_{name}")})
    kinds = {name: _value_kind([c[name] for c in candidates if name in c]) for name in names}
    rows = []
    for (g, scores), candidate in zip(splits, candidates):
        row = [dialect.lit(g)]
        row += [_literal(candidate.get(name), kinds[name], dialect) for name in names]
        row.append(dialect.lit(json.dumps(jsonable(candidate), sort_keys=True)))
        for scorer in scorers:
            row += [dialect.lit(float(s[score_index[scorer]])) if s[score_index[scorer]]
                    is not None else "CAST(NULL AS DOUBLE)" for s in scores]
        rows.append(row)
    leading = [*param_columns, "params"]
    context = {"model": model.name, "rows": rows, "metrics": metrics, "leading": leading,
               "columns": ["__sqlnb_candidate", *leading, *split_columns]}
    best = model.engine.fetch(model.engine.render(
        "search/search_results.sql", only=[dialect.ident(f"rank_test_{key}"),
                                           dialect.ident(f"mean_test_{key}")], **context))
    return model.engine.relation(model.engine.render("search/search_results.sql",
                                                     **context)), best


def _value_kind(values: list[Any]) -> str:
    """How a parameter's values are stored in ``cv_results_``: as numbers, flags or text."""
    if all(isinstance(v, bool) or v is None for v in values):
        return "BOOLEAN"
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) or v is None
           for v in values):
        return "DOUBLE"
    return "VARCHAR"


def _literal(value: Any, kind: str, dialect: Any = DUCKDB) -> str:
    if value is None:
        return f"CAST(NULL AS {dialect.type_name(kind)})"
    if kind == "DOUBLE":
        return dialect.lit(float(value))
    if kind == "BOOLEAN":
        return dialect.lit(bool(value))
    return dialect.lit(json.dumps(jsonable(value)))



def _scratch(model: ModelContext, name: str, **params: Any) -> ModelContext:
    """A new, unfitted model called ``name`` with ``model``'s family and hyperparameters
    (``params`` override some), on the same engine and without scoring macros."""
    return model.renamed(name, family=make_family(model.family.name,
                                                  **{**model.family.params, **params}),
                         sql_macros=False, scoring="auto")


# ---------------------------------------------------------------------- text
# The CountVectorizer options a text search may fix or vary (tf-idf weighting is not
# searched: its idf and norms would need each training set's documents again).
TEXT_OPTIONS = ("lowercase", "token_pattern", "ngram_range", "stop_words", "min_df", "max_df",
                "max_features", "binary")
# Of those, the ones that only choose the vocabulary among the counted terms: candidates
# that differ only in them share both scans.
PRUNING_OPTIONS = ("min_df", "max_df", "max_features")


def _text_candidates(model: ModelContext, candidates: list[dict[str, Any]], column: str,
                     text_options: dict[str, Any]) -> list[tuple[Any, Analyzer]]:
    """Each candidate's family and analyzer (the model's hyperparameters and the fixed text
    options, overridden by the candidate), validated before anything is written."""
    # (complement's norm is the family's, not tf-idf's; tfidf=False is the counts)
    tfidf = ["tfidf"] if text_options.get("tfidf") or any(c.get("tfidf")
                                                          for c in candidates) else []
    tfidf += [key for key in Analyzer.TFIDF_ONLY
              if key in text_options or (key not in model.family.defaults
                                         and any(key in c for c in candidates))]
    if tfidf:
        raise UnsupportedError(
            f"a text search covers CountVectorizer's counts, not tf-idf weighting "
            f"({', '.join(tfidf)}): search the counts, or tune tf-idf with the scikit-learn "
            "facade and GridSearchCV"
        )
    Analyzer.from_options(column, text_options)
    name = model.family.name
    checked: set[str] = set()
    out = []
    for candidate in candidates:
        for key in candidate:
            if key not in model.family.defaults and key not in TEXT_OPTIONS:
                raise InvalidParameterError(
                    f"a text search of {name} naive Bayes has no hyperparameter {key!r}; it "
                    f"takes {', '.join(model.family.defaults)} and the text options "
                    f"{', '.join(TEXT_OPTIONS)}"
                )
        family = make_family(name, **{**model.family.params,
                                      **{k: v for k, v in candidate.items()
                                         if k not in TEXT_OPTIONS}})
        alpha = family.params["alpha"]
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
            raise InvalidParameterError(
                f"a text model takes a single alpha (its features are only known after "
                f"fitting), got {alpha!r}"
            )
        family.alphas(1)
        analyzer = Analyzer.from_options(
            column, {**text_options, **{k: v for k, v in candidate.items() if k in TEXT_OPTIONS}})
        if analyzer.token_pattern not in checked:
            check_re2(model, analyzer.token_pattern)
            checked.add(analyzer.token_pattern)
        out.append((family, analyzer))
    return out


def _search_text(model: ModelContext, source: Any, target: str, column: str, weight: str | None,
                 candidates: list[dict[str, Any]], cv: int | str, scorers: list[str],
                 single: bool, refit: bool | str, refit_metric: str,
                 text_options: dict[str, Any], group_names: list[str]
                 ) -> tuple[SearchResult, Refit | None]:
    """A text model's search: per distinct counting setting (the text options that change
    which terms a document has, and ``binarize``) one scan for every fold's term statistics
    and one scoring scan; each fold's vocabulary is built from its training documents.
    With ``group_names`` (a per-group text model's) every (model, fold) is such a text
    model: the pooled one on the fold's training documents, each group's on those of the
    group, a held-out document scored by its group's (the pooled one where its group has
    no training document in the fold, or is NULL), as ``predict`` routes it."""
    if not model.family.sparse_input:
        raise InvalidParameterError(
            f"a text search needs a count family ({', '.join(TERM_FAMILIES)}), "
            f"not {model.family.name}"
        )
    settings = _text_candidates(model, candidates, column, text_options)
    dialect = model.dialect
    src = model.engine.source(source)
    try:
        columns = src.columns
        for kept in (FOLD, ROUTE):
            if kept in columns:
                raise InvalidParameterError(
                    f"the source has a column {kept!r}, a name search keeps for itself: "
                    "rename it")
        for what, name in (("target", target), ("text", column), ("weight", weight)):
            if name is not None and (not isinstance(name, str) or name not in columns):
                raise UnknownColumnError(f"{what} column {name!r} is not in the source")
        if isinstance(cv, str) and cv not in columns:
            raise UnknownColumnError(
                f"fold column {cv!r} is not in the source (columns: {', '.join(columns)})"
            )
        if isinstance(cv, str) and cv in (target, column, weight, *group_names):
            raise InvalidParameterError(
                f"the fold column {cv!r} cannot also be the target, text, weight or group "
                "column")
        route = None
        if group_names:  # checked as a fit checks group_by
            specs = grouping.group_specs(columns, group_names, target, [{"name": column}],
                                         weight, dialect)
            route = {"name": dialect.ident(ROUTE), "columns": [g["column"] for g in specs]}
        if dialect.kind(columns[column]) != "text":
            raise InvalidDataError(
                f"text column {column!r} has type {columns[column]}, not VARCHAR")
        target_type = columns[target]
        check_label_type(target, target_type, dialect)
        if weight is not None:
            check_weight_type(weight, columns[weight], dialect)
            check_weights(model.engine, src.sql, dialect.ident(target), weight,
                          dialect.ident(weight))
        fold_type = columns[cv] if isinstance(cv, str) else "INTEGER"
        fold_src = Source(
            sql=model.engine.render(
                "search/search_folds.sql", source=src.sql,
                n_folds=cv if isinstance(cv, int) else None,
                fold_column=dialect.ident(cv) if isinstance(cv, str) else None,
                hashed=[dialect.ident(c) for c in (target, column, weight) if c],
                route=route).strip(),
            columns={**columns, FOLD: fold_type, **({ROUTE: "INTEGER"} if route else {})})
        # candidates that count the same terms share their two scans
        groups: dict[tuple, list[int]] = {}
        for g, (family, analyzer) in enumerate(settings):
            options = {k: v for k, v in json.loads(analyzer.to_json()).items()
                       if k not in PRUNING_OPTIONS}
            key = (json.dumps(options, sort_keys=True), family.params.get("binarize"))
            groups.setdefault(key, []).append(g)
        splits: list[tuple[int, list[tuple]]] = [(g, []) for g in range(len(candidates))]
        folds: list[Any] = []
        for members in groups.values():
            folds, scored = _cross_validate_text(
                model, fold_src, [settings[g] for g in members], cv, target, column, weight,
                target_type, fold_type, "neg_log_loss" in scorers, bool(group_names))
            for g, (_, scores) in zip(members, scored):
                splits[g] = (g, scores)
    finally:
        model.engine.release(src)
    result = _search_result(model, candidates, splits, scorers, single, refit_metric,
                            len(folds))
    if refit is False:
        return result, None
    best = result.best_params_
    family = make_family(model.family.name, **{
        **model.family.params, **{k: v for k, v in best.items() if k not in TEXT_OPTIONS}})
    return result, (family, {"text": column, "weight": weight,
        **({"group_by": group_names} if group_names else {}),
        **text_options, **{k: v for k, v in best.items() if k in TEXT_OPTIONS}})


def _cross_validate_text(model: ModelContext, src: Source, settings: list[tuple[Any, Analyzer]],
                         cv: int | str, target: str, column: str, weight: str | None,
                         target_type: str, fold_type: str, log_loss: bool,
                         routed: bool = False
                         ) -> tuple[list[Any], list[tuple[int, list[tuple]]]]:
    """The two scans of the candidates that count the same terms: the folds, and per
    candidate its split scores in fold order. ``routed``: the source numbers each row's
    group (``ROUTE``), and each (model, fold) is keyed by the model (0: the pooled one)."""
    family, analyzer = settings[0]
    dialect = model.dialect
    scratch = _scratch(model, _scratch_name(model),
                       **{k: v for k, v in family.params.items() if k == "binarize"})
    keys = ([{"column": dialect.ident(ROUTE), "type": "INTEGER"}] if routed else []) + [
        {"column": dialect.ident(FOLD), "type": fold_type}]
    t = {**scratch.tables, "groups": keys}
    # (the every candidate's coefficients and constants: dropped with the scratch model)
    scores = {role: f"{scratch.name}_{role}" for role in ("coefficients", "constants")}
    context: dict[str, Any] = {
        "t": t, "source": src.sql, "target": dialect.ident(target),
        "weight": dialect.ident(weight) if weight else None, "column": dialect.ident(column),
        "a": analyzer.sql(), "binarize": family.params.get("binarize"),
        "class_type": target_type, "fold_type": fold_type,
        "route": dialect.ident(ROUTE) if routed else None,
        **{role: model.engine.table(name) for role, name in scores.items()},
    }
    flow = pipeline_of(scratch)
    try:
        with _scratch_scope(scratch) as extra:
            # (a text scratch model writes no metadata row that records its relations)
            extra += [("TABLE", name) for name in scores.values()]
            extra += [(kind, RELATIONS[role].format(name=scratch.name))
                      for kind, roles in (("VIEW", ("class_params", "feature_params")),
                                          ("TABLE", ("terms", "class_stats", "vocabulary",
                                                     "feature_stats", "features")))
                      for role in roles]
            ownership.claim(scratch, ownership.names(scratch.name, "base", "text"))
            # scan 1: every fold's per class and term statistics
            flow.run("search/search_text.sql#statistics", **context)
            flow.run("search/search_text.sql#training_classes", **context)
            folds = [row[0] for row in flow.fetch("search/search_text.sql#folds", **context)]
            _check_folds(folds, cv, "documents")
            # per (model,) fold: its training documents
            documents = {tuple(row[:-1]): row[-1] for row in flow.fetch(
                "search/search_text.sql#training_documents", **context)}
            labels = [row[0] for row in flow.fetch("search/search_text.sql#labels",
                                                   **context)]
            flow.run("search/search_text.sql#scores_tables", **context)
            # candidates that prune the vocabulary alike share its tables
            runs: dict[tuple, list[int]] = {}
            for position, (_, a) in enumerate(settings):
                runs.setdefault(tuple(json.dumps(getattr(a, k)) for k in PRUNING_OPTIONS),
                                []).append(position)
            for members in runs.values():
                a = settings[members[0]][1]
                bounds = []
                for key, n_documents in documents.items():
                    low, high = a.doc_bounds(n_documents)
                    bounds.append({"keys": [dialect.lit(v, k["type"]) for v, k in zip(key, keys)],
                                   "low": low, "high": high})
                flow.run("search/search_text.sql#vocabulary", bounds=bounds,
                         max_features=a.max_features, **context)
                empty = flow.fetch("search/search_text.sql#empty_vocabularies", **context)
                if empty:
                    raise InvalidDataError(
                        f"the training documents of fold(s) {sorted(r[-1] for r in empty)} "
                        + ("(of a group's model) " if routed else "")
                        + "leave no terms after pruning: try a lower min_df or a higher max_df"
                    )
                flow.run("search/search_text.sql#training_terms", **context)
                named = []
                for position in members:  # the candidate's column in the scoring statement
                    f = settings[position][0]
                    named.append({"index": position, "alpha": f.alphas(1)[0], "p": f.params,
                                  "priors": f.prior_list(), "fit_prior": f.fit_prior()})
                flow.run("search/search_text.sql#candidates", candidates=named, **context)
            label_literals = [dialect.lit(label, target_type) for label in labels]
            rendered = [{"classes": [{"label": label,
                                      "jll": dialect.ident(f"__sqlnb_jll_{g}_{i}"),
                                      "coef": dialect.ident(f"__sqlnb_coef_{g}_{i}"),
                                      "constant": dialect.ident(f"__sqlnb_constant_{g}_{i}"),
                                      "sum": dialect.ident(f"__sqlnb_sum_{g}_{i}")}
                                     for i, label in enumerate(label_literals)],
                         "max": dialect.ident(f"__sqlnb_max_{g}")}
                        for g in range(len(settings))]
            # scan 2: every document by its fold's model, for every candidate
            rows = flow.fetch(
                "search/search_score.sql", source=src.sql, target=dialect.ident(target),
                weight=dialect.ident(weight) if weight else None, candidates=rendered, eps=EPS,
                arrays=None, labels=label_literals, log_loss=log_loss,
                text={"column": dialect.ident(column), "a": analyzer.sql(),
                      "binarize": family.params.get("binarize"), "routed": routed,
                      "coefficients": context["coefficients"],
                      "constants": context["constants"]})
    finally:
        ownership.done(scratch)
    return folds, _splits(rows, folds, len(settings))
