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

import dataclasses
import os
from pathlib import Path
from typing import Any

import duckdb

from . import (
    attributes,
    compiler,
    grouping,
    incremental,
    macros,
    ownership,
    parts,
    portable,
    text,
)
from . import pipeline as flows
from . import scoring as scoring_strategies
from .context import USER_ROLES, ModelContext, StoredState, refuse_newer
from .engines import engine_for
from .engines.base import Engine, require_duckdb, require_models
from .engines.dialects import Dialect
from .engines.source import Source
from .errors import (
    InvalidDataError,
    InvalidParameterError,
    ModelNotFoundError,
    NotFittedError,
    UnknownColumnError,
)
from .families import Family, Gaussian, make_family
from .missing import report_skipped
from .pipeline import Pipeline
from .progress import tracked
from .scoring import comment_text
from .spec import ModelSpec
from .validation import (
    check_flag,
    check_output_clashes,
    check_weights,
)

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
        self.sql_macros = check_flag("sql_macros", sql_macros)
        self.progress = check_flag("progress", progress)
        self.scoring = scoring_strategies.check_strategy(scoring)
        # what was read of the stored model, shared by the contexts handed down
        self._state = StoredState()
        self._context_cache: tuple[tuple, ModelContext] | None = None

    def __copy__(self) -> NaiveBayes:
        """A copy with its own record of what was read of the stored model (a script's
        recorder, see :func:`sqlnb.script.record`)."""
        copied = type(self).__new__(type(self))
        copied.__dict__.update(self.__dict__)
        copied._state = dataclasses.replace(self._state)
        copied._context_cache = None
        return copied

    @property
    def context(self) -> ModelContext:
        """The model as the layers below see it (see :mod:`sqlnb.context`): rebuilt when
        the family, engine or settings change, sharing what was read."""
        key = (self.name, self.engine, self.family, self.sql_macros, self.scoring,
               getattr(self, "catalog", None))
        cached = self._context_cache
        if cached is None or any(a is not b for a, b in zip(cached[0], key)):
            context = ModelContext(self.engine, self.name, self.family, parts.READERS,
                                   sql_macros=self.sql_macros, scoring=self.scoring,
                                   catalog=key[-1], state=self._state)
            self._context_cache = cached = (key, context)
        return cached[1]

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
        """The model's relations, by role, already quoted for SQL (on Spark, in the
        engine's database)."""
        return dict(self.context.tables)

    @property
    def table_names(self) -> dict[str, str]:
        """The model's relations, by role, unquoted (for users and SQL clients)."""
        return {role: f"{self.name}_{role}" for role in USER_ROLES}

    def invalidate(self) -> None:
        """Forget what was read of the stored model (metadata, parameters, input kind): the
        next use reads it again."""
        self.context.invalidate()

    @property
    def pipeline(self) -> Pipeline:
        """The model's fit flow and statement runner (see :mod:`sqlnb.pipeline`)."""
        return flows.pipeline_of(self.context)

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
        self.engine.refuse_open_transaction("fit")  # before any read that could fail
        if text is not None or text_options:
            refuse_newer(self.context)
            if text is None or features is not None:
                raise InvalidParameterError(
                    "text options need text=<column>, and a text model takes no features"
                )
            from .text import fit_text
            fit_text(self.context, source, target, text, weight=weight, options=text_options,
                     partial=False, group_by=group_by)
            return self
        src = self.engine.source(source)
        parts.start_fit(self.context)  # the columns' families come from this source
        flow = None
        try:
            spec = parts.input_spec(self.context, src, target, features, weight, group_by)
            # the source's rows, counted in the statement that reads a staged write back
            # (Spark) where they are not known
            flow = self.pipeline
            flow.read_with_write("catalog/sources.sql#rows", source=src.sql)
            with self.engine.transaction("fit", checked=True):
                # the metadata read once, in the write's transaction: a newer sqlnb's model
                # is refused, and its record says what the model owns
                stored = refuse_newer(self.context)
                self.pipeline.take_labelled()
                parts.fit_within(self.context, src, spec, stored=stored, read=True)
                # counted before COMMIT, so nothing can fail once the new model is committed:
                # the labelled rows by the scan, the rows from the source's length where it
                # is known without reading it (Arrow, pandas, Parquet footers), else by a
                # count that reads no column
                n_labelled = self.pipeline.take_labelled()
                n_rows = None if n_labelled is None else self.engine.known_rows(src)
                if n_rows is None and n_labelled is not None:
                    n_rows = flow.fetch_read_with_write(
                        "catalog/sources.sql#rows", source=src.sql)[0][0]
                elif n_rows is None:
                    n_rows, n_labelled = self.pipeline.fetch(
                        "catalog/sources.sql#info", source=src.sql, target=spec["target_sql"])[0]
        finally:
            if flow is not None:
                flow.forget_reads_with_write()
            self.engine.release(src)
            ownership.done(self.context)
        self.invalidate()
        self.n_skipped_ = report_skipped(target, n_rows - n_labelled)
        return self

    def fit_long(self, entries: Any, target: str, *, labels: Any = None,
                 weight: str | None = None, document: str = "document",
                 feature: str = "feature", value: str = "value") -> NaiveBayes:
        """Fit a count family on a long table of (document, feature, value) entries.

        The labels (``target`` and the optional ``weight``) come from ``labels``, a table
        with one row per document, or, when ``labels`` is None, from ``entries`` itself.
        Features are keys of any type (terms, hashed buckets…), stored as text.
        """
        from .text import LongColumns, fit_long
        fit_long(self.context, entries, target, labels=labels, weight=weight,
                 columns=LongColumns(document, feature, value), partial=False)
        return self

    def partial_fit_long(self, entries: Any, target: str, *, labels: Any = None,
                         weight: str | None = None, document: str = "document",
                         feature: str = "feature", value: str = "value") -> NaiveBayes:
        """Add a batch of long input to the model; new features join the model."""
        from .text import LongColumns, fit_long
        fit_long(self.context, entries, target, labels=labels, weight=weight,
                 columns=LongColumns(document, feature, value), partial=True)
        return self


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
        require_duckdb(self.engine, "sparse input")
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
                ownership.claim(self.context, ownership.names(self.name, "base", "macros"))
                self.pipeline.create(target_type)
                grouping.drop_groups(self.context)
                self.pipeline.run("fit/insert_features.sql", features=specs)
                self.pipeline.scan_sparse(entries_src, rows_src, row, target, weight)
                self.pipeline.apply_sparse()
                self.pipeline.finish(specs, target, target_type, weight, kind={"input": "sparse"})
        finally:
            self.engine.release(entries_src)
            self.engine.release(rows_src)
            ownership.done(self.context)
        self.invalidate()
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
        group_by: str | list[str] | None = None,
        text: str | None = None,
        **text_options: Any,
    ) -> NaiveBayes:
        """Fold one more batch into the model (created on the first call); one transaction.

        Equals ``fit`` on all the batches together. A label first seen in a later batch
        becomes a new class, unless ``classes`` declares the classes (as in scikit-learn):
        then a label outside them is an error. ``group_by`` is ``fit``'s: a per-group
        model's later batches may leave it out. See :mod:`sqlnb.incremental`.

        With ``text="body"`` it updates a text model with more documents: the vocabulary,
        idf and analyzer settings come from the first call; later calls add counts for the
        terms the model knows and ignore the others, as scikit-learn's ``partial_fit`` does
        with an already fitted vectorizer. See :mod:`sqlnb.text`.
        """
        if text is not None or text_options:
            if text is None or features is not None or classes is not None:
                raise InvalidParameterError(
                    "text options need text=<column>; a text model takes no features or "
                    "classes"
                )
            from .text import fit_text

            fit_text(self.context, source, target, text, weight=weight, options=text_options,
                     partial=True, group_by=group_by)
            return self
        from .incremental import partial_fit

        partial_fit(self.context, source, target, features=features, weight=weight,
                    classes=classes, group_by=group_by)
        return self

    def partial_fit_sparse(self, entries: Any, rows: Any, target: str, *, features: list[str],
                           weight: str | None = None, row: str = "row",
                           classes: list[Any] | None = None) -> NaiveBayes:
        """:meth:`partial_fit` for sparse (long) input, as taken by :meth:`fit_sparse`."""
        require_duckdb(self.engine, "sparse input")
        from .incremental import partial_fit_sparse

        partial_fit_sparse(self.context, entries, rows, target, features=features,
                           weight=weight, row=row, classes=classes)
        return self

    @tracked("forget")
    def forget(
        self,
        source: Any,
        target: str,
        *,
        features: list[str] | None = None,
        weight: str | None = None,
        group_by: str | list[str] | None = None,
        text: str | None = None,
    ) -> NaiveBayes:
        """Subtract a batch the model learned (exact unlearning); one transaction.

        ``fit(A + B)`` then ``forget(A)`` equals ``fit(B)``. A class left without rows
        disappears (in a per-group model, a group's class too); forgetting what was never
        learned raises and changes nothing.

        ``text="body"`` forgets documents of a text model: the vocabulary and idf of its
        first fit stay, as for ``partial_fit`` (see :func:`sqlnb.text.forget_text`).
        """
        if text is not None:
            if features is not None:
                raise InvalidParameterError("a text model takes no features")
            from .text import forget_text
            forget_text(self.context, source, target, text, weight=weight, group_by=group_by)
            return self
        from .incremental import forget

        forget(self.context, source, target, features=features, weight=weight,
               group_by=group_by)
        return self

    def merge(self, *others: NaiveBayes | str) -> NaiveBayes:
        """Add the statistics of other models (same specification) to this one.

        Equals the fit on the union of their training rows. ``others`` are models or
        names (``"alias.name"`` for a model in an attached database).
        """
        sources = ([self] if incremental.stored_meta(self.context) is not None else []) + list(others)
        merged = merge(self.engine, sources, into=self.name)
        self.family = merged.family
        self.invalidate()
        return self

    # ------------------------------------------------------------------ metadata
    @property
    def meta(self) -> dict[str, Any]:
        """The model's metadata row (family, hyperparameters, features, classes…)."""
        return self.context.meta

    @property
    def spec(self) -> ModelSpec:
        """What kind of model this is, as its metadata row says (see :mod:`sqlnb.spec`)."""
        return self.context.spec

    @property
    def families_(self) -> dict[str, str]:
        """Each feature's family: the model's family, or for ``family="auto"`` the column's."""
        return self.context.families_

    @property
    def features_(self) -> list[str]:
        return self.context.features_

    @property
    def classes_(self) -> list[Any]:
        """The class labels in sorted order, as DuckDB returns them."""
        return self.context.classes_

    @property
    def target(self) -> str:
        return self.meta["target"]

    # ------------------------------------------------------------------ scoring
    def parameters(self) -> dict[str, Any]:
        """Read the (small) parameter views once, for the per-class scoring expressions.

        Everything scoring needs (metadata, groups, parameters) is read in one read
        transaction, so a refit committed by another cursor meanwhile is either wholly
        seen or not at all (see ``Engine.snapshot``)."""
        return self.context.parameters()

    def score_sql(self, source_sql: str, output: str, keep: list[str],
                  prediction: str = "prediction", columns: dict[str, str] | None = None) -> str:
        """The scoring statement for a FROM-clause fragment (used by ``predict*``).

        ``columns`` maps feature names to the SQL expressions that read them."""
        return parts.score_sql(self.context, source_sql, output, keep, prediction=prediction,
                               columns=columns)

    def scored(self, source: Any, output: str, keep_input: bool = True,
               arrow: bool = False) -> Any:
        """The source's rows (unless not ``keep_input``) with the ``output`` columns
        (``predict``, ``proba``, ``log_proba`` or ``joint``): what ``predict*`` return, a
        relation. With ``arrow``, a small Arrow input's result may come back as the Arrow
        table itself (the scikit-learn facade reads it without a relation around it)."""
        scoring_strategies.refresh(self.context)  # another cursor may have refitted the model
        self.parameters()  # metadata and parameters, read together
        if self.context.reads_terms:  # scored by a join of each row's terms
            from .text import score_terms
            return score_terms(self.context, source, output, OUTPUTS[output])
        # a small Arrow table is first looked at without registering it: the arrays
        # strategy scores it with a statement planned once (scoring.prepared_scores)
        src = self.engine.in_memory(source) or self.engine.source(source)
        # an Arrow table of a schema seen before has the very same columns dict (see
        # source._schema_facts): what was checked of it for this output is not asked again
        passed = self.parameters().setdefault("passed_inputs", [])
        if any(known is src.columns and out == output for known, out in passed):
            columns: dict[str, str] = {}  # nothing coerced for these columns' types
        else:
            columns = self._checked_columns(src, output)
            if not columns and not src.sql:
                passed[:] = passed[-7:] + [(src.columns, output)]
        keep = list(src.columns) if keep_input else []
        arrays = scoring_strategies.strategy(self.context, src) == "arrays"
        if arrays and not src.sql:
            return scoring_strategies.prepared_scores(self.context, src, output, keep,
                                                      relation=not arrow)
        if not src.sql:  # scored by a statement of its own: register it after all
            src = self.engine.source(source)
        if arrays:
            sql, parameters = scoring_strategies.array_score_sql(
                self.context, src.sql, output, keep, OUTPUTS[output], columns=columns)
            return self.engine.lazy(src, sql, parameters)
        return self.engine.lazy(src, self.score_sql(src.sql, output, keep, columns=columns))

    def _checked_columns(self, src: Source, output: str) -> dict[str, str]:
        """Refuse a source lacking a feature, of a type the family cannot read, or with a
        column the result would add again (``src`` released first); the expressions that
        read coerced categorical columns (see :func:`sqlnb.scoring.coerced_columns`)."""
        meta = self.meta
        missing = [f for f in self.features_ if f not in src.columns]
        missing += grouping.missing_group_columns(self.context, src.columns)
        if missing:
            self.engine.release(src)
            raise UnknownColumnError(
                f"the source lacks feature column(s) {missing} that model {self.name!r} uses"
            )
        # checked once per input signature and parameters read (a small predict's loop)
        checked = self.parameters().setdefault("checked_types", [])
        signature = (self.family, [(f["name"], src.columns[f["name"]]) for f in meta["features"]])
        if not any(family is self.family and types == signature[1] for family, types in checked):
            for f in meta["features"]:
                try:
                    self.family.check_feature_type(f["name"], src.columns[f["name"]],
                                                   self.dialect)
                except InvalidDataError:
                    self.engine.release(src)
                    raise
            checked[:] = checked[-7:] + [signature]  # a few input schemas at most
        try:
            check_output_clashes(src.columns, self._output_names(output))
            return scoring_strategies.coerced_columns(self.context, src, stacklevel=4)
        except InvalidDataError:
            self.engine.release(src)
            raise

    def score_sparse(self, entries: Any, rows: Any, output: str,
                     row: str = "row") -> duckdb.DuckDBPyRelation:
        """Score sparse (long) input: one row per sample, ordered by ``row``.

        ``output='predict'`` gives a ``prediction`` column; the other outputs give a
        ``scores`` list per row, in class order.
        """
        require_duckdb(self.engine, "sparse input")
        _ = self.meta  # raises NotFittedError early
        entries_src, rows_src = self.engine.source(entries), self.engine.source(rows)
        try:
            result = self.engine.relation(self.engine.render("score/score_sparse.sql", **self.pipeline.context(
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
        return self.scored(source, "predict")

    def predict_proba(self, source: Any) -> duckdb.DuckDBPyRelation:
        """The source's rows with one ``proba_<class>`` column per class."""
        return self.scored(source, "proba")

    def predict_log_proba(self, source: Any) -> duckdb.DuckDBPyRelation:
        """The source's rows with one ``log_proba_<class>`` column per class."""
        return self.scored(source, "log_proba")

    def predict_joint_log_proba(self, source: Any) -> duckdb.DuckDBPyRelation:
        """The source's rows with one ``jll_<class>`` column (log P(x, class)) per class."""
        return self.scored(source, "joint")

    def explain(self, source: Any, top: int | None = None,
                row: int | None = None) -> duckdb.DuckDBPyRelation:
        """Each feature's term of each class's joint log-likelihood per row of ``source``
        (row_number, class, feature, log_likelihood, log_prior), or with ``top=k`` per row
        the ``k`` features that most favour the prediction over the runner-up; ``row``: one
        input row only. See :func:`sqlnb.explain.explain` and ``docs/explain.md``.

        >>> model.explain("new_rows", top=3).df()  # doctest: +SKIP
        """
        from .explain import explain

        return explain(self.context, source, top=top, row=row)

    def drift(self, source: Any, by_class: bool = False,
              bins: int | None = None) -> duckdb.DuckDBPyRelation:
        """One row per feature comparing ``source``'s distribution with the model's
        statistics (feature, method, drift, the batch's and the model's summaries), in
        one scan of ``source``; ``by_class``: also per class (the source has the target
        column); ``bins=k``: also the PSI of Gaussian features over ``k`` bins of equal
        probability under the model's law. See :func:`sqlnb.explain.drift` and
        ``docs/explain.md``.

        >>> model.drift("this_week").order("drift DESC").df()  # doctest: +SKIP
        """
        from .explain import drift

        return drift(self.context, source, by_class=by_class, bins=bins)

    # ------------------------------------------------------------------ plain SQL
    def create_macros(self) -> None:
        """(Re)create the scoring macros ``<name>_predict(row)``… (a fit does it already)."""
        self.engine.refuse_open_transaction("create_macros")
        meta = self.meta  # raises NotFittedError early
        try:
            with self.engine.transaction("create_macros"):
                ownership.claim(self.context, ownership.names(self.name, "macros"))
                macros.create_macros(self.context)
                # a model written without macros did not record their names: now it owns them
                ownership.record_claims(self.context, meta)
        finally:
            ownership.done(self.context)

    def to_sql(self, source: str = "source", output: str = "predict",
               dialect: str = "duckdb", top: int | None = None) -> str:
        """One self-contained SELECT scoring ``source`` (relation SQL), parameters inlined,
        in DuckDB's SQL or, with ``dialect="spark"``, in Spark SQL (docs/spark.md).

        >>> print(model.to_sql("read_parquet('new/*.parquet')"))  # doctest: +SKIP
        >>> spark.sql(model.to_sql("customers", dialect="spark"))  # doctest: +SKIP
        >>> print(model.to_sql("customers", output="explain", top=3))  # doctest: +SKIP
        """
        return compiler.to_sql(self.context, source, output, dialect=dialect, top=top)

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

        return evaluate_model(self.context, source, target)

    def top_features(self, k: int = 10) -> duckdb.DuckDBPyRelation:
        """Per class, the ``k`` features that most raise its log-likelihood against the
        other classes: a relation (class, rank, feature, category, score; a DataFrame on
        Spark); see
        ``sql/reports/top_features.sql`` for each family's score (a ``family="auto"`` model ranks
        its parts' features together; a per-group model's are the pooled model's).
        """
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidParameterError(f"k must be a positive integer, got {k!r}")
        _ = self.meta  # raises NotFittedError early
        pooled = [{"template": part["sub"].template, "shape": part["sub"].statistics_shape,
                   "t": part["t"]} for part in parts.stored_layout(self.context)["pooled"]]
        return self.engine.relation(self.engine.render("reports/top_features.sql", **self.pipeline.context(
            k=k, parts=pooled, model_comment=comment_text(self.name))))

    def search(self, source: Any, target: str, *, features: list[str] | None = None,
               weight: str | None = None, text: str | None = None,
               group_by: str | list[str] | None = None, param_grid: Any,
               cv: int | str = 5, scoring: str | list[str] | tuple[str, ...] = "accuracy",
               refit: bool | str = True, **text_options: Any) -> Any:
        """Cross-validated grid search over derived hyperparameters, in two scans.

        ``cv`` is a number of folds (assigned by a hash of each row) or the name of a
        column of fold ids; ``scoring`` scikit-learn's scorer names. Returns a
        :class:`sqlnb.search.SearchResult` (``cv_results_``, ``best_params_``…); with
        ``refit`` the model is then fitted on every row with the best candidate. See
        :mod:`sqlnb.search` and ``docs/search.md``.

        ``text="body"`` searches a text model (multinomial, complement, bernoulli):
        ``text_options`` are the fixed ``CountVectorizer`` options, and ``param_grid`` may
        vary them too; each fold's vocabulary comes from its training documents.

        >>> model.search("t", "y", param_grid={"var_smoothing": [1e-9, 1e-3]})  # doctest: +SKIP
        """
        from .search import search

        result, best = search(self.context, source, target, features=features, weight=weight,
                              text=text, group_by=group_by, param_grid=param_grid, cv=cv,
                              scoring=scoring, refit=refit, **text_options)
        if best is not None:  # fit on every row with the best candidate
            previous, (self.family, arguments) = self.family, best
            try:
                self.fit(source, target, **arguments)
            except BaseException:
                self.family = previous  # the model and its hyperparameters stay as they were
                raise
            result.best_estimator_ = self
        return result

    def to_sklearn(self) -> Any:
        """A fitted ``sklearn.naive_bayes`` estimator equal to this model.

        For the gaussian, multinomial, complement, bernoulli and categorical families
        (categorical with integer codes); mixed, per-group and text models raise
        :class:`~sqlnb.errors.InvalidParameterError`. See :mod:`sqlnb.exchange`.
        """
        return attributes.to_sklearn(self.context)

    def export(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Write the model to the directory ``path``: one Parquet file per statistics table
        and ``model.json`` (metadata, file list, row counts, checksums). Returns the path.

        Written to a temporary sibling directory and renamed into place; an existing
        ``path`` is replaced only with ``overwrite=True`` and only if it holds an earlier
        export. :func:`sqlnb.import_model` loads it into any DuckDB database; see
        :mod:`sqlnb.portable` and ``docs/exchange.md``.

        >>> model.export("models/churn")  # doctest: +SKIP
        """
        return portable.export_model(self.context, path, overwrite=overwrite)

    # ------------------------------------------------------------------ lifecycle
    def drop(self) -> None:
        """Remove the model's tables and views from the database."""
        ownership.done(self.context)
        with self.engine.transaction("drop"):
            # only what the model owns: never a user's relation or another model's
            # (a per-group text model's group models too: their names are in its record)
            ownership.release(self.context, ownership.every_name(self.name)
                              + sorted(ownership.owned(self.context)))
            ownership.drop_scratch(self.context)
        self.invalidate()

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.family.params.items()
                           if v != type(self.family).defaults[k])
        extra = f", {params}" if params else ""
        return f"NaiveBayes({self.name!r}, family={self.family.name!r}{extra})"


def load(con: duckdb.DuckDBPyConnection, name: str) -> NaiveBayes:
    """Reopen the model ``name`` stored in the database behind ``con``."""
    engine = engine_for(con)
    require_models(engine, "sqlnb.load")
    probe = ModelContext(engine, name, make_family("gaussian"), parts.READERS)
    try:
        meta = probe.meta
    except NotFittedError:
        raise ModelNotFoundError(f"no model named {name!r} in this database") from None
    _ = ModelSpec.from_meta(meta, derive=dict)  # refuses a model from a newer sqlnb
    model = NaiveBayes(name, con=engine, family=meta["family"], **meta["params"])
    model._state.meta = meta
    return model


def import_model(con: duckdb.DuckDBPyConnection, path: str | os.PathLike, *,
                 name: str | None = None, replace: bool = False,
                 sql_macros: bool = True) -> NaiveBayes:
    """Load a model exported with :meth:`NaiveBayes.export` into the database of ``con``.

    The statistics tables are recreated as the model ``name`` (by default the exported
    model's name) and the model is finished as a fit finishes (parameter views, checks,
    metadata, scoring macros), all in one transaction. Refused with a
    :mod:`sqlnb.errors` exception, changing nothing: a directory without an export
    (``ModelNotFoundError``), a newer format, missing or altered files, a family or table
    this sqlnb does not know (``IncompatibleModelError``), and a name already taken by a
    model unless ``replace=True``, or by anything else (``NameConflictError``).
    ``sql_macros=False`` skips the scoring macros (as ``NaiveBayes(sql_macros=False)``
    does), which for models with thousands of categories take most of the time.

    >>> model = sqlnb.import_model(duckdb.connect(), "models/churn")  # doctest: +SKIP
    """
    imported = portable.import_into(con, path, name=name, replace=replace,
                                    sql_macros=sql_macros)
    return NaiveBayes(imported.name, con=imported.engine, family=imported.family.name,
                      sql_macros=sql_macros, **imported.family.params)


def merge(con: duckdb.DuckDBPyConnection | Engine, models: list[Any], *,
          into: str) -> NaiveBayes:
    """Combine models with the same specification into the model ``into``, in one transaction.

    ``models`` are :class:`NaiveBayes` objects or model names; ``"alias.name"`` names the
    model ``name`` of a database attached as ``alias`` (``ATTACH 'day1.duckdb' AS alias``).
    The result equals the fit on the union of the models' training rows. If ``into`` is
    one of ``models`` the others are added to it; otherwise ``into`` is (re)created.
    Text and long-input models merge with models read the same way (see
    :func:`sqlnb.text.merge_models` for how vocabularies combine).

    >>> import duckdb, sqlnb
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i * 1.0 AS x FROM range(8) r(i)")
    >>> a = sqlnb.NaiveBayes("a", con=con).fit("t", "y")
    >>> b = sqlnb.NaiveBayes("b", con=con).fit("t", "y")
    >>> sqlnb.merge(con, [a, "b"], into="ab").meta["classes"]
    [0, 1]
    """
    engine = engine_for(con)
    # Before any read: a failed statement would abort the caller's transaction.
    engine.refuse_open_transaction("merge")
    sources = [_open(engine, m).context for m in models]
    if not sources:
        raise InvalidParameterError("merge needs at least one model")
    if any(source.spec.terms for source in sources):  # text and long input: sqlnb.text
        first = sources[0].meta
        result = NaiveBayes(into, con=engine, family=first["family"], **first["params"])
        text.merge_models(result.context, sources)
        return result
    for source in sources:
        incremental.check_updatable(source)
    spec = sources[0].meta
    for other in sources[1:]:
        incremental.check_same_spec(sources[0], other)
    result = NaiveBayes(into, con=engine, family=spec["family"], **spec["params"])
    stored = incremental.stored_meta(result.context)
    same = sum(incremental.same_model(s, result.context) for s in sources)
    accumulate = stored is not None and same > 0
    if accumulate and same > 1:
        raise InvalidParameterError(
            f"model {into!r} is listed more than once (names ignore case) and is the target: "
            "a model cannot be added to itself; merge into a new name instead"
        )
    if accumulate:
        incremental.check_same_spec(sources[0], result.context)
    incremental.merge_statistics(result.context, sources, accumulate=accumulate)
    return result


def _open(engine: Engine, model: Any) -> NaiveBayes:
    """A model object for a name (possibly ``alias.name`` in an attached database)."""
    if isinstance(model, NaiveBayes):
        model.invalidate()
        _ = model.meta  # raises NotFittedError for an empty model
        return model
    if not isinstance(model, str) or not model:
        raise InvalidParameterError(f"a model must be a NaiveBayes or a name, got {model!r}")
    catalog, _, name = model.partition(".")
    if name and catalog in {r[0] for r in engine.fetch(engine.render("catalog/database.sql#attached_databases"))}:
        return AttachedModel(engine, catalog, name)
    return load(engine, model)


class AttachedModel(NaiveBayes):
    """A model whose tables live in another catalog (a database attached as ``catalog``)."""

    def __init__(self, con: Engine, catalog: str, name: str) -> None:
        super().__init__(name, con=con)
        self.catalog = catalog
        try:
            meta = self.meta
        except NotFittedError:
            raise ModelNotFoundError(
                f"no model named {name!r} in database {catalog!r}") from None
        self.family = make_family(meta["family"], **meta["params"])
