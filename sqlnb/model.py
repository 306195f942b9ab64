"""The SQL-native facade: a naive Bayes model that lives in DuckDB tables.

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i % 2 * 10 + i AS DOUBLE) AS x "
...                 "FROM range(20) r(i)")
>>> model = sqlnb.NaiveBayes("demo", con=con).fit("t", "y")
>>> model.classes_
[0, 1]
>>> model.predict("t").limit(2).fetchall()
[(0, 0.0, 0), (1, 11.0, 0)]
"""

from __future__ import annotations

import json
import os
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb

from . import grouping, macros, mixed, ownership
from . import scoring as scoring_strategies
from .dialect import Dialect
from .engine import Engine, engine_for, require_models
from .errors import (
    CoercedValuesWarning,
    EmptyInputError,
    IncompatibleModelError,
    InvalidDataError,
    InvalidParameterError,
    ModelNotFoundError,
    NotFittedError,
    UnknownColumnError,
    describe_problems,
)
from .families import FAMILIES, Family, Gaussian, make_family
from .missing import plain_classes, report_skipped, scan_batch
from .progress import tracked
from .scoring import comment_text, with_chunks
from .source import Source
from .spec import SCHEMA_VERSION, ModelSpec, jsonable, newer_schema_error
from .validation import (
    check_flag,
    check_label_type,
    check_names,
    check_output_clashes,
    check_weight_type,
    check_weights,
)
from .version import __version__

PILOT_ROWS = Gaussian.pilot_rows  # rows looked at to choose the shift of Gaussian sums

OUTPUTS = scoring_strategies.OUTPUTS


class NaiveBayes:
    """A naive Bayes model stored as statistics tables in a DuckDB database.

    Parameters
    ----------
    name:
        The model's name. Its tables are ``<name>_meta``, ``<name>_class_stats``,
        ``<name>_features``, ``<name>_feature_stats`` and the views ``<name>_class_params``
        and ``<name>_feature_params``.
    con:
        A DuckDB connection; ``None`` opens a private in-memory database.
    family:
        ``"gaussian"``, ``"multinomial"``, ``"complement"``, ``"bernoulli"`` or
        ``"categorical"``.
    sql_macros:
        Re-create the scoring macros ``<name>_predict(row)``, ``<name>_predict_proba(row)``…
        in the database after every fit (see ``docs/sql.md``).
    scoring:
        Which statement scores rows: ``"auto"`` (default), ``"compiled"`` (parameters
        inlined as literals) or ``"arrays"`` (parameters as bound lists); see
        :mod:`sqlnb.scoring`.
    progress:
        Show a progress bar (on an interactive terminal or notebook) while ``fit``,
        ``partial_fit``, ``forget`` and ``evaluate`` run; see :mod:`sqlnb.progress`.
    **hyperparameters:
        scikit-learn's names and defaults for the family (``var_smoothing``, ``alpha``…).
    """

    def __init__(
        self,
        name: str,
        *,
        con: duckdb.DuckDBPyConnection | None = None,
        family: str = "gaussian",
        sql_macros: bool = True,
        progress: bool = False,
        scoring: str = "auto",
        **hyperparameters: Any,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise InvalidParameterError("a model needs a non-empty name")
        self.name = name
        self.engine: Engine = engine_for(con)
        require_models(self.engine, f"NaiveBayes({name!r}, con={type(con).__name__})")
        self.family: Family = make_family(family, **hyperparameters)
        self._meta: dict[str, Any] | None = None
        self._compiled: dict[str, Any] | None = None
        self.sql_macros = check_flag("sql_macros", sql_macros)
        self.progress = check_flag("progress", progress)
        self.scoring = scoring_strategies.check_strategy(scoring)
        self._term_input: tuple | None = None
        self._spec: tuple[dict[str, Any], ModelSpec] | None = None
        self._owned: set[str] | None = None  # see sqlnb/ownership.py
        self._needed: list[str] | None = None

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The DuckDB connection the model lives in."""
        return self.engine.connection

    @property
    def dialect(self) -> Dialect:
        """How the model's engine spells SQL."""
        return self.engine.dialect

    # ------------------------------------------------------------------ naming
    @property
    def tables(self) -> dict[str, str]:
        """The model's relations, by role, already quoted for SQL."""
        roles = ("meta", "class_stats", "features", "feature_stats", "class_params",
                 "feature_params")
        names = {role: self.dialect.ident(f"{self.name}_{role}") for role in roles}
        names["batch"] = self.dialect.ident(f"__sqlnb_batch_{self.name}")
        names["shifts"] = self.dialect.ident(f"__sqlnb_shifts_{self.name}")
        # term models (text and long input): see sqlnb/text.py
        names["analyzer"] = self.dialect.ident(f"{self.name}_analyzer")
        names["vocabulary"] = self.dialect.ident(f"{self.name}_vocabulary")
        names["terms"] = self.dialect.ident(f"__sqlnb_terms_{self.name}")
        return names

    @property
    def table_names(self) -> dict[str, str]:
        """The model's relations, by role, unquoted (for users and SQL clients)."""
        return {role: f"{self.name}_{role}" for role in
                ("meta", "class_stats", "features", "feature_stats", "class_params",
                 "feature_params")}

    def _context(self, **extra: Any) -> dict[str, Any]:
        return {
            "t": self.tables,
            "model": self.name,
            "family_name": self.family.name,
            "family_template": self.family.template,
            "family_has_batch": self.family.has_batch,
            "family_long_batch": self.family.long_batch,
            "family_has_batch_checks": self.family.has_batch_checks,
            "p": self.family.params,
            **extra,
        }

    def _run(self, template: str, **context: Any) -> None:
        self.engine.execute(self.engine.render(template, **self._context(**context)))

    def _fetch(self, template: str, **context: Any) -> list[tuple]:
        return self.engine.fetch(self.engine.render(template, **self._context(**context)))

    def _fetch_with_names(self, template: str, **context: Any) -> tuple[list[str], list[tuple]]:
        return self.engine.fetch_with_names(
            self.engine.render(template, **self._context(**context)))

    # ------------------------------------------------------------------ fitting
    @tracked("fit")
    def fit(
        self,
        source: Any,
        target: str,
        *,
        features: list[str] | None = None,
        weight: str | None = None,
        group_by: str | list[str] | None = None,
        text: str | None = None,
        **text_options: Any,
    ) -> NaiveBayes:
        """Fit the model on ``source``: one scan, then statistics tables and parameter views.

        ``features=None`` takes every column but the target, the weight and the group
        columns. ``group_by`` (a column or a list of columns) fits one model per group in the
        same scan, plus a pooled model for groups unseen at fit time (see
        :mod:`sqlnb.grouping`). Nothing is written if anything fails: the previous model
        (if any) is left as it was.

        ``text="body"`` fits a count family on a text column instead, tokenised in SQL;
        ``text_options`` are scikit-learn's ``CountVectorizer`` options (and, with
        ``tfidf=True``, ``TfidfVectorizer``'s). See :mod:`sqlnb.text`.
        """
        self._refuse_newer()
        if text is not None or text_options:
            if text is None or features is not None:
                raise InvalidParameterError(
                    "text options need text=<column>, and a text model takes no features"
                )
            if group_by is not None:
                raise InvalidParameterError(
                    "group_by is not available for text models: fit one text model per "
                    "group (e.g. on a view filtered to that group)"
                )
            from .text import fit_text
            fit_text(self, source, target, text, weight=weight, options=text_options,
                     partial=False)
            return self
        if group_by is not None and self.family.composite:
            raise InvalidParameterError(
                "group_by is not available for family='auto' models yet: fit one model "
                "per group (e.g. on a view filtered to that group), or give every column "
                "one family"
            )
        self.engine.refuse_open_transaction("fit")  # before any read that could fail
        src = self.engine.source(source)
        if self.family.composite:
            self.family.assigned = {}  # the columns' families come from this source
        try:
            spec = self._fit_spec(src, target, features, weight, group_by)
            with self.engine.transaction("fit"):
                self._fit_in_transaction(src, spec)
                # counted before COMMIT, so nothing can fail once the new model is committed
                n_rows, n_labelled = self._fetch("source_info.sql", source=src.sql,
                                                 target=spec["target_sql"])[0]
        finally:
            self.engine.release(src)
            ownership.done(self)
        self._meta = None
        self._compiled = None
        self.n_skipped_ = report_skipped(target, n_rows - n_labelled)
        self._term_input = None
        return self

    def _refuse_newer(self) -> None:
        """A model of this name written by a newer sqlnb is not overwritten either."""
        self._meta = None
        try:
            _ = self.meta
        except NotFittedError:
            pass
        except IncompatibleModelError as exc:
            if exc.newer:
                raise
        self._meta = None

    def fit_long(self, entries: Any, target: str, *, labels: Any = None,
                 weight: str | None = None, document: str = "document",
                 feature: str = "feature", value: str = "value") -> NaiveBayes:
        """Fit a count family on a long table of (document, feature, value) entries.

        The labels (``target`` and the optional ``weight``) come from ``labels``, a table
        with one row per document, or, when ``labels`` is None, from ``entries`` itself.
        Features are keys of any type (terms, hashed buckets…), stored as text.
        """
        from .text import LongColumns, fit_long
        fit_long(self, entries, target, labels=labels, weight=weight,
                 columns=LongColumns(document, feature, value), partial=False)
        return self

    def partial_fit_long(self, entries: Any, target: str, *, labels: Any = None,
                         weight: str | None = None, document: str = "document",
                         feature: str = "feature", value: str = "value") -> NaiveBayes:
        """Add a batch of long input to the model; new features join the model."""
        from .text import LongColumns, fit_long
        fit_long(self, entries, target, labels=labels, weight=weight,
                 columns=LongColumns(document, feature, value), partial=True)
        return self

    def _require_column_model(self, what: str) -> None:
        """Text and long (term) models are scored by a join, not by per-column SQL."""
        if self._stored_input():
            raise InvalidParameterError(
                f"{what} is not available for text or long-input models yet"
            )

    def _stored_input(self) -> tuple | None:
        """For a term model, how it reads its input (kind, options, n_documents)."""
        if self._term_input is None:
            from .text import stored_input
            self._term_input = stored_input(self) or ()
        return self._term_input or None

    def _fit_spec(self, src: Source, target: str, features: list[str] | None,
                  weight: str | None, group_by: str | list[str] | None = None) -> dict[str, Any]:
        columns = src.columns
        if not isinstance(target, str) or target not in columns:
            raise UnknownColumnError(
                f"target column {target!r} is not in the source (columns: {', '.join(columns)})"
            )
        if weight is not None and not isinstance(weight, str):
            raise InvalidParameterError(f"weight must name a column, got {weight!r}")
        if weight is not None:
            if weight not in columns:
                raise UnknownColumnError(f"weight column {weight!r} is not in the source")
            check_weight_type(weight, columns[weight], self.dialect)
        check_label_type(target, columns[target], self.dialect)
        if features is not None:
            features = check_names("features", features, allow_none=False)
        if features is None:
            grouped = [group_by] if isinstance(group_by, str) else list(group_by or [])
            features = [c for c in columns if c not in (target, weight) and c not in grouped]
        else:
            missing = [f for f in features if f not in columns]
            if missing:
                raise UnknownColumnError(f"feature column(s) not in the source: {missing}")
            if len(set(features)) != len(features):
                raise InvalidParameterError("features contains a column twice")
            if target in features or (weight is not None and weight in features):
                raise InvalidParameterError("the target and weight cannot also be features")
        if not features:
            raise InvalidDataError("there are no feature columns to fit")
        if weight is not None:
            check_weights(self.engine, src.sql, self.dialect.ident(target), weight,
                          self.dialect.ident(weight))
        for name in features:
            self.family.check_feature_type(name, columns[name], self.dialect)
        unknown = [n for n in self.family.params.get("value_columns") or () if n not in features]
        if unknown:
            raise UnknownColumnError(f"value_columns names column(s) that are not features: "
                                     f"{unknown}")
        options = self.family.feature_options(len(features))
        specs = []
        for i, (name, extra) in enumerate(zip(features, options)):
            spec = {"name": name, "column": self.dialect.ident(name), "alias": f"c{i}",
                    "type": columns[name], "shift": 0.0, **extra}
            if self.family.per_category:
                spec["coding"] = self.family.coding(name, columns[name], self.dialect)
            specs.append(spec)
        spec = {
            "target": target,
            "target_sql": self.dialect.ident(target),
            "target_type": columns[target],
            "weight": weight,
            "weight_sql": None if weight is None else self.dialect.ident(weight),
            "features": specs,
        }
        if group_by is not None:
            spec["groups"] = grouping.group_specs(columns, group_by, target, specs, weight,
                                                  self.dialect)
        return spec

    def _fit_in_transaction(self, src: Source, spec: dict[str, Any]) -> None:
        kinds = ("groups",) if spec.get("groups") else ("parts",) if self.family.composite else ()
        ownership.claim(self, ownership.names(self.name, "base", "macros", *kinds))
        if spec.get("groups"):
            grouping.fit_grouped(self, src, spec)
            return
        grouping.drop_groups(self)
        features = spec["features"]
        if self.family.composite:
            mixed.fit_mixed(self, src, spec, pilot_rows=PILOT_ROWS, schema_version=SCHEMA_VERSION)
            return
        mixed.drop_parts(self)  # of an earlier mixed model
        self._create_tables(spec["target_type"])
        self._run("insert_features.sql", features=features)
        self._scan_batch(src, spec)
        problems = self._fetch("batch_checks.sql", features=features)
        if problems:
            raise InvalidDataError(describe_problems(problems))
        self._run("merge.sql", features=features, weighted=spec["weight"] is not None)
        self._finish_fit(features, spec["target"], spec["target_type"], spec["weight"])

    def _create_tables(self, class_type: str, *, text: bool = False) -> None:
        """Create the model's (empty) tables, releasing its earlier ones (and an earlier
        text model's); ``text`` adds the tables of a term model."""
        ownership.release(self, ownership.names(self.name, "base", "text"))
        self._run("create_model.sql", class_type=class_type)
        if text:
            ownership.release(self, ownership.names(self.name, "text") + [
                f"{self.name}_feature_stats", f"{self.name}_features"])
            self._run("text/create_text.sql", class_type=class_type)

    def _sparse_batch(self, entries: Source, rows: Source, row: str, target: str,
                      weight: str | None) -> None:
        """The batch of sparse (row, feature_index, value) input, checked; one scan."""
        self._run("batch_sparse.sql", entries=entries.sql, rows=rows.sql,
                  row=self.dialect.ident(row), target=self.dialect.ident(target),
                  feature=self.dialect.ident("feature_index"), value_column=self.dialect.ident("value"),
                  by_name=False, distinct_rows=False,
                  weight=None if weight is None else self.dialect.ident(weight),
                  binarize=self.family.params.get("binarize"))
        if self._fetch("batch_size.sql")[0][0] == 0:
            raise EmptyInputError("there are no labelled rows in the batch")
        problems = self._fetch("batch_checks_sparse.sql",
                               needs_non_negative=self.family.has_batch_checks)
        if problems:
            raise InvalidDataError(describe_problems(problems))

    def _scan_batch(self, src: Source, spec: dict[str, Any]) -> None:
        """One batch of the source into the batch table (fit, partial_fit, forget).

        Gaussian sums are taken around a shift from the first rows; NaN-bearing floats
        and cancelling sums are rescanned (see ``missing.scan_batch`` and below).
        """
        features = spec["features"]
        if self.family.shifted:
            self._run("pilot.sql", source=src.sql, target=spec["target_sql"],
                      features=features, rows=PILOT_ROWS)
            overall = self._fetch("pilot_overall.sql", features=features)[0]
            for f, shift in zip(features, overall):
                f["shift"] = float(shift)
        scan_batch(lambda: self._run("batch.sql", source=src.sql, target=spec["target_sql"],
                                     weight=spec["weight_sql"], features=features,
                                     batch_options=self.family.batch_options()),
                   self._fetch, features, lambda f: self.family.name, self.dialect)
        if self._fetch("batch_size.sql")[0][0] == 0:
            n_rows, _ = self._fetch("source_info.sql", source=src.sql,
                                    target=spec["target_sql"])[0]
            if n_rows == 0:
                raise EmptyInputError("the source has no rows")
            raise EmptyInputError(f"the target column {spec['target']!r} has only NULL values")
        if self.family.shifted:
            self._rescan_cancelling(src, spec)

    def _rescan_cancelling(self, src: Source, spec: dict[str, Any]) -> None:
        """Scan again, around per-class shifts, if some feature's sums cancelled too much.

        The first scan sums every feature around one shift (no join: it runs at the speed
        of a plain scan). Where a class lies far from that shift relative to its spread,
        the batch is redone with each class's own mean as the shift of those features.
        """
        features = spec["features"]
        weighted = spec["weight"] is not None
        cancelling = {row[0] for row in self._fetch("batch_cancelling.sql", features=features,
                                                    weighted=weighted)}
        if not cancelling:
            return
        rescan = [f for f in features if f["name"] in cancelling]
        self._run("class_shifts.sql", features=rescan, weighted=weighted)
        for f in rescan:
            f["class_shift"] = True
        self._run("batch.sql", source=src.sql, target=spec["target_sql"],
                  weight=spec["weight_sql"], features=features,
                  batch_options=self.family.batch_options())

    def _finish_fit(self, features: list[dict[str, Any]], target: str, target_type: str,
                    weight: str | None, *, scoring_macros: bool = True,
                    kind: dict[str, Any] | None = None) -> None:
        """After a merge: class checks, parameter views, sanity checks and metadata.

        ``scoring_macros=False`` (text and long models, which a row-wise macro cannot
        score) drops any macros an earlier fit of the same name left behind. ``kind`` is
        the input kind and group columns the metadata records (see :mod:`sqlnb.spec`).
        """
        kind = {"input": "columns", "groups": [], **(kind or {}), "parts": [self.family.name]}
        self._run("drop_batch.sql")
        n_classes = self._fetch("class_count.sql")[0][0]
        if n_classes < self.family.min_classes:
            raise InvalidDataError(
                f"{self.family.name} naive Bayes needs at least {self.family.min_classes} "
                f"classes; the target has {n_classes}"
            )
        self.family.check_priors(n_classes)
        self._run("params.sql", priors=self.family.prior_list(),
                  fit_prior=self.family.fit_prior())
        problems = self._fetch("checks.sql", features=features)
        if problems:
            raise InvalidDataError(describe_problems(problems))
        self._run(
            "write_meta.sql",
            schema_version=SCHEMA_VERSION,
            params_json=json.dumps(jsonable(self.family.params)),
            target=target,
            target_type=target_type,
            weight=weight,
            features_json=json.dumps([{"name": f["name"], "type": f["type"]} for f in features]),
            spec_json=json.dumps(kind),
            version=__version__,
            relations_json=ownership.relations_json(self),
        )
        if getattr(self, "sql_macros", True) and scoring_macros:
            macros.create_macros(self)
        elif not scoring_macros:
            macros.drop_macros(self)

    def fit_sparse(
        self,
        entries: Any,
        rows: Any,
        target: str,
        *,
        features: list[str],
        weight: str | None = None,
        row: str = "row",
    ) -> NaiveBayes:
        """Fit a count family on sparse (long) input without densifying it.

        ``entries`` has columns ``row``, ``feature_index`` and ``value`` (non-zero cells);
        ``rows`` has one row per sample: ``row``, the target and the optional weight.
        ``features`` names the feature indices 0..n-1.
        """
        if not self.family.sparse_input:
            raise InvalidParameterError(
                f"sparse input needs a count family, not {self.family.name}"
            )
        self.engine.refuse_open_transaction("fit_sparse")
        entries_src, rows_src = self.engine.source(entries), self.engine.source(rows)
        try:
            for column in (row, target) + ((weight,) if weight else ()):
                if column not in rows_src.columns:
                    raise UnknownColumnError(f"column {column!r} is not in the rows table")
            if weight:
                check_weights(self.engine, rows_src.sql, self.dialect.ident(target), weight,
                              self.dialect.ident(weight))
            specs = [{"name": name, "column": self.dialect.ident(name), "alias": f"c{i}",
                      "type": "DOUBLE", "shift": 0.0, **extra}
                     for i, (name, extra) in
                     enumerate(zip(features, self.family.feature_options(len(features))))]
            target_type = rows_src.columns[target]
            with self.engine.transaction("fit_sparse"):
                ownership.claim(self, ownership.names(self.name, "base", "macros"))
                self._create_tables(target_type)
                grouping.drop_groups(self)
                self._run("insert_features.sql", features=specs)
                self._sparse_batch(entries_src, rows_src, row, target, weight)
                self._run("merge_sparse.sql")
                self._finish_fit(specs, target, target_type, weight, kind={"input": "sparse"})
        finally:
            self.engine.release(entries_src)
            self.engine.release(rows_src)
            ownership.done(self)
        self._meta = None
        self._compiled = None
        self._term_input = None
        return self

    # ------------------------------------------------------------------ incremental
    @tracked("partial-fit")
    def partial_fit(
        self,
        source: Any,
        target: str,
        *,
        features: list[str] | None = None,
        weight: str | None = None,
        classes: list[Any] | None = None,
        text: str | None = None,
        **text_options: Any,
    ) -> NaiveBayes:
        """Fold one more batch into the model (created on the first call); one transaction.

        Equals ``fit`` on all the batches together. A label first seen in a later batch
        becomes a new class, unless ``classes`` declares the classes (as in scikit-learn):
        then a label outside them is an error. See :mod:`sqlnb.incremental`.

        With ``text="body"`` it updates a text model with more documents: the vocabulary,
        idf and analyzer settings come from the first call; later calls add counts for the
        terms the model knows and ignore the others, as scikit-learn's ``partial_fit`` does
        with an already fitted vectorizer. See :mod:`sqlnb.text`.
        """
        if text is not None or text_options:
            if text is None or features is not None or classes is not None:
                raise InvalidParameterError(
                    "text options need text=<column>; a text model takes no features or classes"
                )
            from .text import fit_text

            fit_text(self, source, target, text, weight=weight, options=text_options,
                     partial=True)
            return self
        from .incremental import partial_fit

        return partial_fit(self, source, target, features=features, weight=weight,
                           classes=classes)

    def partial_fit_sparse(self, entries: Any, rows: Any, target: str, *, features: list[str],
                           weight: str | None = None, row: str = "row",
                           classes: list[Any] | None = None) -> NaiveBayes:
        """:meth:`partial_fit` for sparse (long) input, as taken by :meth:`fit_sparse`."""
        from .incremental import partial_fit_sparse

        return partial_fit_sparse(self, entries, rows, target, features=features,
                                  weight=weight, row=row, classes=classes)

    @tracked("forget")
    def forget(
        self,
        source: Any,
        target: str,
        *,
        features: list[str] | None = None,
        weight: str | None = None,
    ) -> NaiveBayes:
        """Subtract a batch the model learned (exact unlearning); one transaction.

        ``fit(A + B)`` then ``forget(A)`` equals ``fit(B)``. A class left without rows
        disappears; forgetting what was never learned raises and changes nothing.
        """
        from .incremental import forget

        return forget(self, source, target, features=features, weight=weight)

    def merge(self, *others: NaiveBayes | str) -> NaiveBayes:
        """Add the statistics of other models (same specification) to this one.

        Equals the fit on the union of their training rows. ``others`` are models or
        names (``"alias.name"`` for a model in an attached database).
        """
        from .incremental import merge, stored_meta

        sources = ([self] if stored_meta(self) is not None else []) + list(others)
        merged = merge(self.engine, sources, into=self.name)
        self.family = merged.family
        self._meta = None
        self._compiled = None
        return self

    # ------------------------------------------------------------------ metadata
    @property
    def meta(self) -> dict[str, Any]:
        """The model's metadata row (family, hyperparameters, features, classes…)."""
        if self._meta is None:
            meta_name = f"{self.name}_meta"
            local = getattr(self, "catalog", None) is None  # not a model of an attached db
            rows: list[tuple] = []
            if local and meta_name.lower() not in ownership.existing(self, [meta_name]):
                pass  # asked of the catalog: a failed read would abort a transaction
            else:
                try:
                    names, rows = self._fetch_with_names("read_meta.sql")
                except self.engine.missing_relation_errors:
                    rows = []
                if not ownership.META_COLUMNS <= set(names if rows else ()):
                    rows = []  # a table of that name, but not a model's metadata
            if not rows:
                raise NotFittedError(
                    f"model {self.name!r} is not fitted yet: call fit() before predicting"
                )
            meta = dict(zip(names, rows[0]))
            meta.setdefault("spec", None)
            if not isinstance(meta["schema_version"], int) or \
                    meta["schema_version"] > SCHEMA_VERSION:
                # neither used nor rewritten: a newer layout may mean something else
                raise newer_schema_error(self.name, meta["schema_version"])
            try:
                for key in ("params", "features", "classes"):
                    meta[key] = json.loads(meta[key])
            except (TypeError, ValueError) as exc:
                raise IncompatibleModelError(
                    f"model {self.name!r} has corrupt metadata ({key} in {meta_name}: {exc}): "
                    f"fit it again, or drop it (sqlnb.NaiveBayes({self.name!r}, con=con)"
                    ".drop())"
                ) from None
            self._meta = meta
        return self._meta

    @property
    def spec(self) -> ModelSpec:
        """What kind of model this is, as its metadata row says (see :mod:`sqlnb.spec`)."""
        meta = self.meta
        if self._spec is None or self._spec[0] is not meta:
            self._spec = (meta, ModelSpec.from_meta(meta, derive=self._derive_kind))
        return self._spec[1]

    def _derive_kind(self) -> dict[str, Any]:
        """The ``spec`` of a schema-1 model, from the tables it has."""
        from .text import stored_kind

        groups = grouping.probe_groups(self)
        return {"input": stored_kind(self) or "columns",
                "groups": [[g["name"], g["type"]] for g in groups]}

    @property
    def families_(self) -> dict[str, str]:
        """Each feature's family: the model's family, or for ``family="auto"`` the column's."""
        return {f["name"]: f.get("family", self.meta["family"]) for f in self.meta["features"]}

    @property
    def features_(self) -> list[str]:
        return [f["name"] for f in self.meta["features"]]

    @property
    def classes_(self) -> list[Any]:
        """The class labels in sorted order, as DuckDB returns them."""
        return [label for _, label, _ in self._compile()["classes"]]

    @property
    def target(self) -> str:
        return self.meta["target"]

    # ------------------------------------------------------------------ scoring
    def _compile(self) -> dict[str, Any]:
        """Read the (small) parameter views once, for the per-class scoring expressions.

        Everything scoring needs (metadata, groups, parameters) is read in one read
        transaction, so a refit committed by another cursor meanwhile is either wholly
        seen or not at all (see ``Engine.snapshot``)."""
        if self._compiled is not None:
            return self._compiled
        with self.engine.snapshot():
            self._meta = None
            self._term_input = None
            try:
                compiled = self._read_parameters()
                groups = [] if self._stored_input() else grouping.read_groups(self)
                if groups:
                    compiled["groups"] = groups
                    compiled["group_models"] = grouping.group_models(self, groups)
            except self.engine.missing_relation_errors as exc:
                # the meta row is there, but a table or view it needs is not
                raise IncompatibleModelError(
                    f"model {self.name!r} is incomplete, a relation it needs is missing "
                    f"({str(exc).splitlines()[0]}): fit it again, or drop it"
                ) from None
        self._compiled = compiled
        return compiled

    def _read_parameters(self) -> dict[str, Any]:
        if self._stored_input():
            from .text import compile_classes
            return compile_classes(self)
        meta = self.meta
        if self.family.composite:
            return mixed.compile_mixed(self)
        types = {f["name"]: f["type"] for f in meta["features"]}
        classes = self._fetch("read_params.sql", what="classes")
        constants = dict(self._fetch("read_params.sql", what="constants"))
        order = {f["name"]: i for i, f in enumerate(meta["features"])}
        terms: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
        names, rows = self._fetch_with_names("read_params.sql", what="terms")
        for row in rows:
            class_index, feature = row[0], row[1]
            term = terms[class_index].setdefault(
                feature, {"name": feature, "column": self.dialect.ident(feature),
                          "family": self.family.name, "guard": self.dialect.kind(types.get(feature)) == "float"}
            )
            self.family.fill_term(term, row, names[3:])
        compiled_classes = []
        for class_index, label, _ in classes:
            class_terms = sorted(terms[class_index].values(), key=lambda t: order[t["name"]])
            compiled_classes.append(with_chunks({
                "index": class_index,
                "label_value": label,
                "label": self.dialect.lit(label, meta["target_type"]),
                "constant": constants[class_index],
                "terms": class_terms,
                "jll": self.dialect.ident(f"__sqlnb_jll_{class_index}"),
            }))
        return {"classes": classes, "compiled": compiled_classes}

    def score_sql(self, source_sql: str, output: str, keep: list[str],
                  prediction: str = "prediction", columns: dict[str, str] | None = None) -> str:
        """The scoring statement for a FROM-clause fragment (used by ``predict*``).

        ``columns`` maps feature names to the SQL expressions that read them."""
        if self._compile().get("groups"):  # per-group models: rows are routed to their group
            return macros.scoring_sql(self, source_sql, output, prediction=prediction,
                                      output_prefix=OUTPUTS[output], columns=columns)
        compiled = self._compile()
        classes = []
        for c in (macros.with_columns(c, columns) for c in compiled["compiled"]):
            prefix = OUTPUTS[output]
            out = None if prefix is None else self.dialect.ident(f"{prefix}{c['label_value']}")
            classes.append({**c, "output": out})
        plain, guarded = plain_classes(classes)
        return self.engine.render(
            "score.sql",
            **self._context(
                source=source_sql,
                output=output,
                keep=[self.dialect.ident(k) for k in keep],
                classes=plain,
                robust=classes if guarded else None,
                prediction=self.dialect.ident(prediction),
            ),
        )

    def _score(self, source: Any, output: str, keep_input: bool = True) -> duckdb.DuckDBPyRelation:
        scoring_strategies.refresh(self)  # another cursor may have refitted the model
        self._compile()  # metadata and parameters, read together
        meta = self.meta
        if self._stored_input():
            from .text import score_terms
            return score_terms(self, source, output, OUTPUTS[output])
        src = self.engine.source(source)
        missing = [f for f in self.features_ if f not in src.columns]
        missing += grouping.missing_group_columns(self, src.columns)
        if missing:
            self.engine.release(src)
            raise UnknownColumnError(
                f"the source lacks feature column(s) {missing} that model {self.name!r} uses"
            )
        for f in meta["features"]:
            try:
                self.family.check_feature_type(f["name"], src.columns[f["name"]], self.dialect)
            except InvalidDataError:
                self.engine.release(src)
                raise
        try:
            check_output_clashes(src.columns, self._output_names(output))
            columns = self._coerced_columns(src)
        except InvalidDataError:
            self.engine.release(src)
            raise
        keep = list(src.columns) if keep_input else []
        if scoring_strategies.strategy(self) == "arrays":
            sql, parameters = scoring_strategies.array_score_sql(
                self, src.sql, output, keep, OUTPUTS[output], columns=columns)
            return self.engine.lazy(src, sql, parameters)
        return self.engine.lazy(src, self.score_sql(src.sql, output, keep, columns=columns))

    def _coerced_columns(self, src: Source) -> dict[str, str]:
        """Categorical features whose source column has another numeric (or BOOLEAN) type
        than at fit, read as the model's type: categories are compared by value (1.0 is the
        category 1, 1 is TRUE). A value the model's type cannot hold exactly is an error."""
        families = self.families_
        coerced = [
            {"name": f["name"], "column": self.dialect.ident(f["name"]), "model_type": f["type"],
             "source_type": src.columns[f["name"]]}
            for f in self.meta["features"]
            if FAMILIES[families[f["name"]]].per_category
            and src.columns[f["name"]].upper() != f["type"].upper()
            and self.dialect.is_numeric(f["type"])
            and self.dialect.is_numeric(src.columns[f["name"]])
        ]
        if not coerced:
            return {}
        found = self._fetch("coercion_checks.sql", source=src.sql, features=coerced)[0]
        for i, f in enumerate(coerced):
            n_inexact, example = found[2 * i], found[2 * i + 1]
            if n_inexact:
                raise InvalidDataError(
                    f"categorical feature {f['name']!r} was {f['model_type']} at fit but is "
                    f"{f['source_type']} here, and {n_inexact} value(s) (e.g. {example}) are "
                    f"no {f['model_type']} category; convert the column before scoring"
                )
            warnings.warn(
                f"categorical feature {f['name']!r} was {f['model_type']} at fit but is "
                f"{f['source_type']} here: its values are compared as {f['model_type']} "
                "(1.0 as 1, 1 as TRUE; NaN is missing)",
                CoercedValuesWarning, stacklevel=4,
            )
        return {f["name"]: f"TRY_CAST({f['column']} AS {f['model_type']})" for f in coerced}

    def score_sparse(self, entries: Any, rows: Any, output: str,
                     row: str = "row") -> duckdb.DuckDBPyRelation:
        """Score sparse (long) input: one row per sample, ordered by ``row``.

        ``output='predict'`` gives a ``prediction`` column; the other outputs give a
        ``scores`` list per row, in class order.
        """
        _ = self.meta  # raises NotFittedError early
        entries_src, rows_src = self.engine.source(entries), self.engine.source(rows)
        try:
            result = self.engine.relation(self.engine.render("score_sparse.sql", **self._context(
                entries=entries_src.sql, rows=rows_src.sql, row=self.dialect.ident(row),
                output=output)))
        except BaseException:
            self.engine.release(entries_src)
            self.engine.release(rows_src)
            raise
        return self.engine.hold(result, entries_src, rows_src)

    def _output_names(self, output: str) -> set[str]:
        prefix = OUTPUTS[output]
        if prefix is None:
            return {"prediction"}
        return {f"{prefix}{label}" for label in self.classes_}

    def predict(self, source: Any) -> duckdb.DuckDBPyRelation:
        """The source's rows with a ``prediction`` column appended (a lazy relation)."""
        return self._score(source, "predict")

    def predict_proba(self, source: Any) -> duckdb.DuckDBPyRelation:
        """The source's rows with one ``proba_<class>`` column per class."""
        return self._score(source, "proba")

    def predict_log_proba(self, source: Any) -> duckdb.DuckDBPyRelation:
        """The source's rows with one ``log_proba_<class>`` column per class."""
        return self._score(source, "log_proba")

    def predict_joint_log_proba(self, source: Any) -> duckdb.DuckDBPyRelation:
        """The source's rows with one ``jll_<class>`` column (log P(x, class)) per class."""
        return self._score(source, "joint")

    # ------------------------------------------------------------------ plain SQL
    def create_macros(self) -> None:
        """(Re)create the scoring macros ``<name>_predict(row)``… (a fit does it already)."""
        self.engine.refuse_open_transaction("create_macros")
        _ = self.meta  # raises NotFittedError early
        try:
            with self.engine.transaction("create_macros"):
                ownership.claim(self, ownership.names(self.name, "macros"))
                macros.create_macros(self)
        finally:
            ownership.done(self)

    def to_sql(self, source: str = "source", output: str = "predict",
               dialect: str = "duckdb") -> str:
        """One self-contained SELECT scoring ``source`` (relation SQL), parameters inlined,
        in DuckDB's SQL or, with ``dialect="spark"``, in Spark SQL (docs/spark.md).

        >>> print(model.to_sql("read_parquet('new/*.parquet')"))  # doctest: +SKIP
        >>> spark.sql(model.to_sql("customers", dialect="spark"))  # doctest: +SKIP
        """
        self._require_column_model("to_sql")
        return macros.to_sql(self, source, output, dialect=dialect)

    def fit_sql(self, source: Any, target: str, **kwargs: Any) -> str:
        """The SQL script ``fit(source, target, **kwargs)`` runs, without running it.

        ``source`` must be a table, view or file path. The database is left unchanged.
        """
        from .script import record

        return record(self, "fit", source, target, **kwargs)

    @tracked("evaluate")
    def evaluate(self, source: Any, target: str | None = None) -> dict[str, Any]:
        """Accuracy, per-class precision/recall/F1, macro/weighted F1, log loss and the
        confusion matrix of the model on ``source`` (labels in ``target``, by default the
        fitted target), computed in SQL. See :func:`sqlnb.metrics.evaluate`.
        """
        from .metrics import evaluate_model

        self._require_column_model("evaluate (use sqlnb.evaluate on a predictions relation)")
        return evaluate_model(self, source, target)

    def top_features(self, k: int = 10) -> duckdb.DuckDBPyRelation:
        """Per class, the ``k`` features that most raise its log-likelihood against the
        other classes: a relation (class, rank, feature, category, score); see
        ``sql/top_features.sql`` for each family's score.
        """
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidParameterError(f"k must be a positive integer, got {k!r}")
        _ = self.meta  # raises NotFittedError early
        if self.family.composite:
            raise InvalidParameterError(
                "top_features is not available for family='auto' models yet: its columns "
                "have different families, whose scores do not compare; read each part's "
                "parameters (families_ names them) or fit a single-family model"
            )
        return self.engine.relation(self.engine.render("top_features.sql", **self._context(
            k=k, model_comment=comment_text(self.name))))

    def search(self, source: Any, target: str, *, features: list[str] | None = None,
               weight: str | None = None, text: str | None = None,
               group_by: str | list[str] | None = None, param_grid: Any,
               cv: int | str = 5, scoring: str | list[str] | tuple[str, ...] = "accuracy",
               refit: bool | str = True) -> Any:
        """Cross-validated grid search over derived hyperparameters, in two scans.

        ``cv`` is a number of folds (assigned by a hash of each row) or the name of a
        column of fold ids; ``scoring`` scikit-learn's scorer names. Returns a
        :class:`sqlnb.search.SearchResult` (``cv_results_``, ``best_params_``…); with
        ``refit`` the model is then fitted on every row with the best candidate. See
        :mod:`sqlnb.search` and ``docs/search.md``.

        >>> model.search("t", "y", param_grid={"var_smoothing": [1e-9, 1e-3]})  # doctest: +SKIP
        """
        from .search import search

        return search(self, source, target, features=features, weight=weight, text=text,
                      group_by=group_by, param_grid=param_grid, cv=cv, scoring=scoring,
                      refit=refit)

    def to_sklearn(self) -> Any:
        """A fitted ``sklearn.naive_bayes`` estimator equal to this model.

        For the gaussian, multinomial, complement, bernoulli and categorical families
        (categorical with integer codes); mixed, per-group and text models raise
        :class:`~sqlnb.errors.InvalidParameterError`. See :mod:`sqlnb.exchange`.
        """
        from .exchange import to_sklearn

        return to_sklearn(self)

    def export(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Write the model to the directory ``path``: one Parquet file per statistics table
        and ``model.json`` (metadata, file list, row counts, checksums). Returns the path.

        Written to a temporary sibling directory and renamed into place; an existing
        ``path`` is replaced only with ``overwrite=True`` and only if it holds an earlier
        export. :func:`sqlnb.import_model` loads it into any DuckDB database; see
        :mod:`sqlnb.portable` and ``docs/exchange.md``.

        >>> model.export("models/churn")  # doctest: +SKIP
        """
        from .portable import export_model

        return export_model(self, path, overwrite=overwrite)

    # ------------------------------------------------------------------ lifecycle
    def drop(self) -> None:
        """Remove the model's tables and views from the database."""
        ownership.done(self)
        with self.engine.transaction("drop"):
            # only what the model owns: never a user's relation or another model's
            ownership.release(self, ownership.every_name(self.name))
        self._meta = None
        self._compiled = None
        self._term_input = None

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.family.params.items()
                           if v != type(self.family).defaults[k])
        extra = f", {params}" if params else ""
        return f"NaiveBayes({self.name!r}, family={self.family.name!r}{extra})"


def load(con: duckdb.DuckDBPyConnection, name: str) -> NaiveBayes:
    """Reopen the model ``name`` stored in the database behind ``con``."""
    probe = NaiveBayes.__new__(NaiveBayes)
    probe.name, probe.engine = name, engine_for(con)
    require_models(probe.engine, "sqlnb.load")
    probe.family = make_family("gaussian")
    probe._meta, probe._compiled, probe._term_input, probe._spec = None, None, None, None
    probe._owned, probe._needed = None, None
    try:
        meta = probe.meta
    except NotFittedError:
        raise ModelNotFoundError(f"no model named {name!r} in this database") from None
    _ = ModelSpec.from_meta(meta, derive=dict)  # refuses a model from a newer sqlnb
    model = NaiveBayes(name, con=probe.engine, family=meta["family"], **meta["params"])
    model._meta = meta
    return model
