"""The one fit flow: create the statistics tables, apply signed batches, finish.

Every way a model learns goes through a :class:`Pipeline`: ``fit`` (dense, sparse,
per-group, ``family="auto"`` parts, text and long input), ``partial_fit`` and ``forget``
(the same flow with a sign), and ``merge`` (another model's statistics are one more
batch). The inputs only differ in how they produce a batch table; the steps around it are
written once here:

1. ``create`` the (empty) statistics tables, releasing the model's earlier ones;
2. ``scan`` a source into the batch table (the Gaussian pilot shift first, NaN-safe
   rescans, cancelling sums rescanned around per-class shifts), or ``scan_sparse``;
3. ``apply(features, sign=+1|-1)``: the batch's checks, then its signed upsert into the
   statistics;
4. ``finish``: class checks, parameter views, parameter checks, the metadata row (with the
   model's spec and owned relations) and the scoring macros.

The caller runs these inside one ``engine.transaction``: if any step fails, nothing of the
call is left behind. On an engine without transactions (Spark) the write goes to a new
version of the statistics and metadata tables (:meth:`Pipeline.stage`), switched to when
the transaction's block ends.

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i * 1.0 AS x FROM range(6) r(i)")
>>> model = sqlnb.NaiveBayes("demo", con=con).fit("t", "y")
>>> model.pipeline.fetch("fit/counts.sql#class_count")
[(2,)]
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import compiler, macros, ownership
from .context import ModelContext, StoredState, template_context
from .engines.duckdb import of_tables
from .engines.source import Source, in_memory_rows
from .errors import EmptyInputError, InvalidDataError, describe_problems
from .families import Family, Gaussian
from .missing import non_finite_problems, scan_batch
from .spec import SCHEMA_VERSION, jsonable
from .version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from .engines.base import Engine


# The most values (rows x features) of an input whose batch is summed long (_long_sums):
# there its unpivoted rows cost less to aggregate than the wide scan costs to plan (beyond,
# on DuckDB 1.5.0, the wide scan was the cheaper in CPU time).
LONG_SUMS_VALUES = 40_000

# Column types the batch table of a planned scan is created with as they are (no quotes, so
# no user text: an ENUM's labels, say, send the scan the unplanned way).
PLAIN_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_ ]*(\(\d+(, ?\d+)?\))?")

# The problem of the row by which quick checks ask for the full ones (fit/checks.sql).
RECHECK = "recheck"

# Names of the batch tables updates keep from call to call (one per pipeline).
_kept_batches = itertools.count()

# The tables a write on an engine without transactions versions; the metadata is the switch.
VERSIONED_ROLES = ("features", "class_stats", "feature_stats", "meta")
# and those of a term model (text or long input), versioned with them (before the switch)
TERM_ROLES = ("vocabulary", "analyzer")


def versioned_roles(terms: bool) -> tuple[str, ...]:
    """The roles a staged write versions (``terms``: a term model's), the switch last."""
    return VERSIONED_ROLES[:-1] + (TERM_ROLES if terms else ()) + VERSIONED_ROLES[-1:]
# Those an update's upsert writes the new version of directly (the templates of the
# upserts, whose statements read no table they write but the one they upsert into); any
# other statement of the write first has them copied (Pipeline.settle_copies).
PENDING_ROLES = ("class_stats", "feature_stats", "features")
WRITES_VERSIONS = frozenset({"update/merge.sql", "update/merge_model.sql",
                             "update/update_features.sql"})


class NewVersion(str):
    """The quoted name of a staged write's new version of a table, given as the target of
    the statement that first changes it: the dialect then writes the version from the
    current one in that statement (``creates_version``), with no copy before it."""

    creates_version = True


class ScratchView(str):
    """The quoted name of a staged write's parameter view over its new version: a view of
    the session only (``sql.create_view``), created only if a statement of the write
    reads it (``Engine.defer``), replaced by the next write that creates it, never
    dropped."""

    temporary = True


class Pipeline:
    """The fit flow of one model: its engine, family and relations (``tables``, quoted).

    ``owner`` is the model object whose ownership record (see :mod:`sqlnb.ownership`) the
    writes extend, and which the scoring macros are compiled from.
    """

    def __init__(self, engine: Engine, family: Family, name: str, tables: dict[str, Any],
                 owner: ModelContext, *, sql_macros: bool = True) -> None:
        self.engine = engine
        self.family = family
        self.name = name
        self.tables = tables
        self.owner = owner
        self.sql_macros = sql_macros and engine.capabilities.stored_functions
        self.stable = dict(tables)  # the names readers use, whatever a write stages
        # the problems scan() found in the batch table it wrote (None: not asked)
        self._batch_problems: list[tuple] | None = None
        self._params_context: dict[str, Any] | None = None
        # a staged write's scoring functions: (re)created (True) or dropped (False) after
        # the switch, from the parameters of the new version
        self._functions_after_switch: str | bool | None = None
        # whether the statements an update repeats are planned once per text (set for an
        # update's duration), and the schema key of the write slot its scan reads
        self.planning = False
        self.slot_key: Any = None
        # the batch table planned updates keep from call to call (quoted; None until the
        # first), the key of the scan whose columns it has (None: to be created again),
        # and whether this update made a per-class shifts table (a rescan)
        self._kept_batch: str | None = None
        self._kept_key: Any = None
        self._made_shifts = False
        # an update on an engine without temporary tables leaves its batch table for the
        # next one to overwrite (``_overwrites_batch``); the shape of the scan that wrote
        # the table this pipeline left (None: none, or not known)
        self._overwrites_batch = False
        self._left_batch: str | None = None
        # the labelled rows the last scan counted (see take_labelled)
        self._labelled: int | None = None
        self._scanned_classes: int | None = None  # and the classes its batch has
        # whether this write's batch table is long (a row per class and feature, see
        # _long_sums): the templates that read it get ``t.long_sums``
        self._long = False
        # a staged update's tables not copied yet: role -> (new version, its scratch name)
        self._pending: dict[str, tuple[str, str]] = {}
        # the caller's reads that a staged write's read-back takes with it (text -> its
        # answer once read; see read_with_write)
        self._with_write: dict[str, list[tuple] | None] = {}

    def start_update(self, slot_key: Any, keep_batch: bool) -> None:
        """An update (partial_fit, forget) begins: the statements it repeats are planned
        once per text; ``slot_key`` is the schema of the write slot its scan reads, if any.
        ``keep_batch`` (a planned scan): the batch goes in a table kept from call to call,
        emptied at the end instead of dropped, so that no DDL runs in later calls."""
        self.planning, self.slot_key, self._made_shifts = True, slot_key, False
        self._long = False  # (a write that failed may have left it set)
        # no temporary tables: the batch is a table of the catalog, left for the next
        # update to overwrite (one statement instead of a drop and a create)
        self._overwrites_batch = keep_batch and not self.engine.capabilities.temp_tables
        if keep_batch and self.engine.keeps_plans:
            if self._kept_batch is None:
                self._kept_batch = self.engine.table(
                    f"__sqlnb_batch_{os.getpid()}_{next(_kept_batches)}")
                self.engine.keep_table(self._kept_batch)
            self.tables["batch"] = self._kept_batch

    def end_update(self) -> None:
        """The update's statements are done (its transaction ends next)."""
        self.planning, self.slot_key = False, None
        self.tables["batch"] = self.stable["batch"]
        self._overwrites_batch = False

    def update_failed(self) -> None:
        """The update was rolled back, which drops the kept batch table if that transaction
        made it: the next update makes it again."""
        self._kept_key = None
        self._long = False

    def _keeps_batch(self) -> bool:
        return self._kept_batch is not None and self.tables["batch"] == self._kept_batch

    # ------------------------------------------------------------------ statements
    def context(self, family: Family | None = None, **extra: Any) -> dict[str, Any]:
        """The template context of the model (or of one of its parts' ``family``)."""
        if self._long and family is None:
            extra["t"] = {**extra.get("t", self.tables), "long_sums": True}
        return template_context(self.tables, self.name, family or self.family, **extra)

    def render(self, template: str, **context: Any) -> str:
        """A template rendered in the model's context and the engine's dialect."""
        return self.engine.render(template, **self.context(**context))

    def render_repeated(self, template: str, **context: Any) -> str:
        """:meth:`render` of a statement an update repeats at every call (remembered)."""
        return self.engine.render_repeated(template, **self.context(**context))

    def run(self, template: str, **context: Any) -> None:
        sql = self._settled(template, self.render(template, **context),
                            lambda: self.render(template, **context))
        self.engine.execute(sql)
        self._settle(sql)

    def _settled(self, template: str, sql: str, again: Callable[[], str]) -> str:
        """``sql`` (of ``template``), or if it names a table of a staged update that is
        not copied yet (and is not one of the upserts that write its new version), that
        table copied first and the statement rendered ``again``."""
        named = [role for role in self._pending if self.stable[role] in sql]
        if not named or template in WRITES_VERSIONS:
            return sql
        self.settle_copies(roles=named)
        return again()

    def _settle(self, sql: str) -> None:
        """After a statement of a staged update: the tables it wrote the new version of
        (named as a ``NewVersion`` target, see :meth:`stage`) are read from there on."""
        for role, (target, scratch) in list(self._pending.items()):
            if target in sql:
                self.tables[role] = target
                self.tables["next_" + role] = scratch
                del self._pending[role]

    def settle_copies(self, *, carry: bool = False, roles: list[str] | None = None) -> None:
        """The tables of a staged update that no statement changed (of ``roles``, if
        given): copied to the new version as they are, or (``carry``: the write's
        statements are done) kept as the version readers have where the engine can."""
        for role, (target, scratch) in list(self._pending.items()):
            if roles is not None and role not in roles:
                continue
            if carry and self.engine.carry(f"{self.name}_{role}"):
                del self._pending[role]
                continue
            self.engine.execute(self.engine.render(
                "catalog/versions.sql#copy", table=self.stable[role], into=target))
            self.tables[role], self.tables["next_" + role] = target, scratch
            del self._pending[role]

    def keep_unwritten(self) -> None:
        """A staged write that stops before its metadata (the model of a group that a
        forget empties, dropped after the switch): the tables it did not write stay as
        readers have them, so the switch has a version of each."""
        if not self.staged():
            return
        self.settle_copies(carry=True)
        self.engine.carry(f"{self.name}_meta")

    def fetch(self, template: str, **context: Any) -> list[tuple]:
        return self.engine.fetch(self.render(template, **context))

    def fetch_with_names(self, template: str, **context: Any) -> tuple[list[str], list[tuple]]:
        return self.engine.fetch_with_names(self.render(template, **context))

    def run_planned(self, template: str, key: Any = None, **context: Any) -> None:
        """:meth:`run` of a statement an update repeats: planned once per text (and
        ``key``, the schema of the input slot it reads) where the engine can."""
        sql = self._settled(template, self.render_repeated(template, **context),
                            lambda: self.render_repeated(template, **context))
        if self.planning:
            self.engine.execute_planned(sql, key)
        else:
            self.engine.execute(sql)
        self._settle(sql)

    def fetch_planned(self, template: str, key: Any = None, **context: Any) -> list[tuple]:
        """:meth:`fetch`, planned once per text (see :meth:`run_planned`)."""
        sql = self.render_repeated(template, **context)
        return self.engine.fetch_planned(sql, key) if self.planning else self.engine.fetch(sql)

    def read_with_write(self, template: str, **context: Any) -> None:
        """Have the next staged write's read-back (one statement, see :meth:`_read_back`)
        also read ``template``, for a :meth:`fetch_read_with_write` of it after the write
        (an engine that reads no write back answers that one then)."""
        self._with_write[self.render(template, **context)] = None

    def fetch_read_with_write(self, template: str, **context: Any) -> list[tuple]:
        """:meth:`fetch` of a read asked with :meth:`read_with_write`: the rows the write's
        read-back read, else read now. Every such read is forgotten here."""
        sql = self.render(template, **context)
        found, self._with_write = self._with_write.get(sql), {}
        return self.engine.fetch(sql) if found is None else found

    def forget_reads_with_write(self) -> None:
        """Forget what :meth:`read_with_write` asked (the write is over)."""
        self._with_write = {}

    def check(self, template: str, **context: Any) -> None:
        """Run a checks query; any (feature, problem) row it returns is an error."""
        refuse(self.fetch(template, **context))

    # ------------------------------------------------------------------ 1. create
    def create(self, class_type: str, *, text: bool = False,
               features: list[dict[str, Any]] | None = None, refill: bool = False) -> None:
        """Create the model's (empty) tables, releasing its earlier ones (and an earlier
        text model's); ``text`` adds the tables of a term model. ``features``: the
        features table gets their rows (a staged write creates it with them).
        ``refill``: the model's tables and parameter views are those this fit would create
        (:meth:`same_shape`): nothing is created, and the statement that fills the
        statistics tables empties them first."""
        self._long = False  # (until this write's scan decides; a failed write may have set it)
        self._made_shifts = False  # (until this write's scan rescans)
        if refill:
            return
        staged = self.stage(fresh=True, terms=text)
        # staged: the current version's tables and parameter views stay until the switch
        # (the views are replaced after it): a failed write leaves the model answering
        kept = {f"{self.name}_{role}" for role in (*versioned_roles(text), "class_params",
                                                   "feature_params")} if staged else set()
        ownership.release(self.owner, [name for name in ownership.names(self.name, "base", "text")
                                       if name not in kept])
        later = staged and features is not None
        self.run("fit/create_model.sql", class_type=class_type, meta_later=staged,
                 features_later=later)
        if features is not None:
            self.run("fit/insert_features.sql", features=features, create=later)
        if text:
            ownership.release(self.owner, [name for name in ownership.names(self.name, "text")
                                           + [f"{self.name}_feature_stats",
                                              f"{self.name}_features"] if name not in kept])
            self.run("text/create_text.sql", class_type=class_type)

    def fit_shape(self, class_type: str, features: list[dict[str, Any]]) -> str:
        """A fingerprint of what a fit of a model over columns creates: the text of its
        tables, of its features' rows and of its parameter views (their text holds the
        class type, the features and the hyperparameters). A fit records it in the
        metadata's spec (``shape``), where the next fit finds it (:meth:`same_shape`)."""
        texts = [self.render("fit/create_model.sql", class_type=class_type),
                 self.render("fit/insert_features.sql", features=features),
                 self.render("score/params.sql", **self.params_context())]
        return hashlib.sha256("\n".join(texts).encode()).hexdigest()[:32]

    def same_shape(self, stored: dict[str, Any] | None, shape: str) -> bool:
        """Whether a fit can refill the tables of the model as they are (no table or view
        created): an engine with transactions (a failed refill is rolled back), a
        metadata row (``stored``, read in this write's transaction) whose spec records
        the ``shape`` this fit would create and whose ownership record names exactly what
        this write claimed, and each of the model's tables and parameter views present
        as such (the look at the catalog the metadata read made, no statement here)."""
        if stored is None or not self.engine.capabilities.transactions:
            return False
        try:
            recorded = json.loads(stored.get("spec") or "{}").get("shape")
            owned = {name.lower() for name in json.loads(stored.get("relations") or "null")}
        except (TypeError, ValueError, AttributeError):
            return False
        claimed = {name.lower() for name in self.owner.state.claimed_relations or []}
        if recorded != shape or owned != claimed:
            return False
        names = ownership.names(self.name, "base")
        present = ownership.existing(self.owner, names)
        return all(present.get(name.lower()) == ("VIEW" if name.endswith("_params") else "TABLE")
                   for name in names)

    def params_context(self) -> dict[str, Any]:
        """The context of the parameter views (``score/params.sql``)."""
        return {"priors": self.family.prior_list(), "fit_prior": self.family.fit_prior()}

    def stage(self, *, fresh: bool, terms: bool = False) -> bool:
        """On an engine without transactions, point the statistics and metadata tables at
        a new version (created empty if ``fresh``, else as a copy of the current one) and
        the parameter views at scratch ones over it: readers keep the current version until
        the transaction's block ends and the engine switches to the new one. Returns whether
        the write is staged (False on engines with transactions, which write in place).
        ``terms``: a term model's vocabulary and analyzer tables are versioned too."""
        if self.engine.capabilities.transactions:
            return False
        if "next_meta" in self.tables:
            return True  # staged already by this write
        roles = versioned_roles(terms)
        names = [f"{self.name}_{role}" for role in roles]
        scratch_views = [f"{self.name}_{role}" for role in ("class_params", "feature_params")]
        self.engine.drop_stale_views(scratch_views)  # a killed writer's
        version = self.engine.stage(names, self._staged_write_done)
        for role, name in zip(roles, names):
            target = self.engine.version_table(name, version)
            scratch = self.engine.version_table(name, version, scratch=True)
            if not fresh and role in PENDING_ROLES:
                # not copied: the first statement that changes it writes the new version
                # from the current one (see _settle); a copy only if none does (finish)
                self.tables[role] = self.stable[role]
                self.tables["next_" + role] = NewVersion(target)
                self._pending[role] = (target, scratch)
                continue
            if not fresh and role != "meta":  # (write_meta creates the new metadata)
                self.engine.execute(self.engine.render(
                    "catalog/versions.sql#copy", table=self.stable[role], into=target))
            self.tables[role] = target
            self.tables["next_" + role] = scratch
        for role in ("class_params", "feature_params"):
            self.tables[role] = ScratchView(self.engine.dialect.ident(
                f"__sqlnb_staged_{self.name}_{role}"))
        return True

    def staged(self) -> bool:
        """Whether a staged write is under way: ``tables`` name its new version."""
        return "next_meta" in self.tables

    def staged_context(self) -> ModelContext:
        """The model's context over the tables this pipeline names now (a staged write's
        new version), with a read state of its own."""
        return dataclasses.replace(self.owner, tables=dict(self.tables), state=StoredState())

    def _staged_write_done(self, switched: bool) -> None:
        """After a staged write: the names readers use again; the parameter views over
        them (re)created if the write was switched to (the scratch ones are the session's)."""
        self._pending.clear()
        self.tables.clear()
        self.tables.update(self.stable)
        context, self._params_context = self._params_context, None
        functions, self._functions_after_switch = self._functions_after_switch, None
        if switched and context is not None:
            self.run("score/params.sql", **context)
        if switched and functions is not None:
            # the scoring functions embed the parameters of the version readers now see
            if isinstance(functions, str):
                macros.create_functions(self.owner, functions)
            else:
                self.owner.invalidate()
                macros.drop_macros(self.owner)

    # ------------------------------------------------------------------ 2. batches
    def shift(self, src: Source, target_sql: str, features: list[dict[str, Any]], *,
              per_class: bool = False, class_type: str | None = None, **context: Any) -> None:
        """Choose the shift of each feature's Gaussian sums from the source's first rows
        (one small query): the mean of the classes' means there. ``per_class``: a feature
        where some class lies away from that shift (its mean more than a third of its range
        from it: some three spreads, where its sums would lose a digit, see the batch's
        cancellation check) is summed around each class's own value from those rows
        (``pilot_shift``, joined by the batch query), so well-separated classes need no
        rescan; the others keep the plain scan, a literal shift per feature.

        ``class_type``: the target's type; where it is an integer, text or boolean type, the
        per-class values are the pilot's answers written as constants (a join with a few
        literal rows, where the batch query would otherwise aggregate the first rows again)."""
        rows = self.fetch("fit/pilot.sql", source=src.sql, target=target_sql,
                          features=features, rows=Gaussian.pilot_rows, **context)
        labels = [row[-1] for row in rows]
        literal = (class_type is not None
                   and self.engine.dialect.kind(class_type) in ("integer", "text", "bool")
                   and any(c is not None for c in labels)
                   and all(isinstance(c, (int, str)) for c in labels if c is not None))
        for i, f in enumerate(features):
            classes = [row[3 * i:3 * i + 3] for row in rows
                       if all(v is not None and math.isfinite(v) for v in row[3 * i:3 * i + 3])]
            shift = math.fsum(mean for mean, _, _ in classes) / len(classes) if classes else 0.0
            f["shift"] = shift if math.isfinite(shift) else 0.0
            # a new model's origin: the stored class means are kept relative to it
            f.setdefault("origin", f["shift"])
            apart = per_class and any(3 * abs(mean - f["shift"]) > high - low
                                      for mean, low, high in classes)
            f["pilot_shift"] = Gaussian.pilot_rows if apart else 0
            f.pop("pilot_classes", None)
            if apart and literal:
                # each labelled class's value: its one value where all are equal, else its
                # mean; None where not finite (the feature's shift then applies)
                f["pilot_classes"] = (class_type, [
                    (label, None if mean is None or not math.isfinite(mean)
                     else low if low == high else mean)
                    for label, (mean, low, high) in
                    zip(labels, (row[3 * i:3 * i + 3] for row in rows)) if label is not None])

    def stored_shift(self, features: list[dict[str, Any]],
                     cache: dict[str, Any] | None = None) -> bool:
        """An update's shifts from the model's learned means (one small read); False, and
        nothing set, when some feature has none yet. Any shift keeps the sums exact enough:
        features whose sums cancel are rescanned around per-class means (``scan``).

        ``cache`` (the caller's, kept between updates of one model) keeps the means read
        while the features and their origins stay: the shifts, so the batch scan's text
        and plan, are then the same at every call, and the read is not repeated."""
        origins = tuple((f["name"], f.get("origin", 0.0)) for f in features)
        if cache is not None and cache.get("origins") == origins:
            known = cache["means"]
        else:
            known = {name: (float(mean), bool(apart))
                     for name, mean, apart in self.fetch("fit/pilot_stored.sql")}
            if not all(f["name"] in known for f in features):
                return False
            if cache is not None:
                cache.update(origins=origins, means=known)
        # per-class shifts join the model's statistics, which a staged write (an engine
        # without transactions) would have to copy first: there, one shift per feature
        per_class = self.engine.capabilities.transactions
        for f in features:
            mean, apart = known[f["name"]]
            # the stored means are relative to the feature's origin
            f["shift"] = f.get("origin", 0.0) + mean
            f["pilot_shift"] = "stored" if apart and per_class else 0
        return True

    def scan(self, src: Source, spec: dict[str, Any]) -> None:
        """One batch of the source into the batch table (fit, partial_fit, forget).

        Gaussian sums are taken around a shift from the first rows (an update's from the
        model's learned means, ``spec["stored_shift"]``); NaN-bearing floats
        and cancelling sums are rescanned (see ``missing.scan_batch`` and below).
        """
        features = spec["features"]
        self._batch_problems = None
        self._long = self._long_sums(src, spec)
        # (a long batch needs no pilot: each class's own mean is its shift, and a feature
        # without an origin yet gets one from the scan, read back by the probe)
        if self.family.shifted and not self._long and not (spec.get("stored_shift")
                                        and self.stored_shift(features, spec.get("update_cache"))):
            self.shift(src, spec["target_sql"], features, per_class=True,
                       class_type=spec.get("target_type"))

        weighted = spec["weight"] is not None

        def run_batch() -> None:
            context = {"source": src.sql, "target": spec["target_sql"],
                       "weight": spec["weight_sql"], "features": features,
                       "batch_options": self.family.batch_options()}
            if spec.get("planned"):  # an update's scan of a table or the write slot
                self._planned_batch(context, spec.get("update_cache"))
            elif self._overwrites_batch:
                self._overwritten_batch(context)
            else:
                self._left_batch = None
                self.run("fit/batch.sql", **context)

        looks: list[dict[str, Any]] = []

        def look(template: str, checks: list[dict[str, Any]]) -> list[tuple]:
            # scan_batch's look for non-finite sums, asked with the batch's other questions
            looks.append(self._probe(features, weighted, checks))
            return [(name,) for name in looks[-1]["nan"]]

        scan_batch(run_batch, look, features, lambda f: self.family.name,
                   self.engine.dialect,
                   lambda bad: self.refuse_non_finite(src, spec["target_sql"], bad,
                                                      lambda f: self.family.name))
        if not looks or looks[-1]["nan"]:  # no look yet, or the batch was run again
            looks.append(self._probe(features, weighted, []))
        probe = looks[-1]
        for f in features:
            if f["name"] in probe.get("origins", {}):
                f["origin"] = probe["origins"][f["name"]]
        if probe["size"] == 0:
            self.refuse_empty(src, spec)
        self._batch_problems = probe["problems"]
        # the source's labelled rows and classes, counted by the scan (a batch of a row per
        # class)
        per_class = not self.family.long_batch  # (a long sums batch has its class rows)
        self._labelled = probe["labelled"] if per_class else None
        self._scanned_classes = probe["size"] if per_class else None
        if probe["cancelling"] and self._long:
            # (not expected: each class's sums are taken around its own mean) the wide scan
            self._long = False
            self.scan(src, {**spec, "long_sums": False})
        elif probe["cancelling"]:
            self._rescan_cancelling(src, spec, probe["cancelling"])

    def _long_sums(self, src: Source, spec: dict[str, Any]) -> bool:
        """Whether a fit's batch is summed long (``families/gaussian.sql``'s
        ``long_sums``: the input's values unpivoted to (class, feature, value) rows, a few
        aggregates per class and feature, each class's sums around its own mean computed in
        the same statement) rather than wide (four aggregates per feature, whose planning
        dominates a small fit). Only for a family that has the form, a small in-memory
        input of known size (the unpivoted rows are its rows times its features), without
        weights or groups, on DuckDB, in a fit's unplanned scan."""
        if (not self.family.long_sums or spec.get("long_sums") is False
                or spec["weight"] is not None or spec.get("groups")
                or spec.get("planned") or spec.get("stored_shift")
                or self.engine.dialect.name != "duckdb"):
            return False
        rows = None if src.obj is None else in_memory_rows(src.obj)
        return rows is not None and rows * len(spec["features"]) <= LONG_SUMS_VALUES

    def _planned_batch(self, context: dict[str, Any], cache: dict[str, Any] | None) -> None:
        """An update's batch scan, planned once: the first call of a scan's text creates the
        batch table from the query and notes its columns (in ``cache``, the caller's per
        model); later ones create the empty table from those and run the scan as a planned
        INSERT (DuckDB cannot plan a CREATE ... AS once for many runs)."""
        create = self.render_repeated("fit/batch.sql", **context)
        known = None if cache is None else cache.setdefault("batch_columns", {})
        key = (create, self.slot_key)
        kept = self._keeps_batch()
        if known is None or key not in known or not self.planning:
            self.engine.execute(create)
            self._kept_key = None
            if known is not None:
                columns = [tuple(row[:2]) for row in
                           self.fetch("catalog/sources.sql#describe", source=self.tables["batch"])]
                if all(PLAIN_TYPE.fullmatch(type_) for _, type_ in columns):
                    if len(known) >= 8:  # an update's scans vary little; keep a few
                        known.clear()
                    known[key] = columns
                    self._kept_key = key if kept else None
            return
        if not kept or self._kept_key != key:
            self.run("fit/batch_table.sql", columns=known[key])
            self._kept_key = key if kept else None
        self.run_planned("fit/batch.sql", self.slot_key, into=True, **context)

    def _overwritten_batch(self, context: dict[str, Any]) -> None:
        """An update's batch scan on an engine without temporary tables: over the rows of
        the batch table this pipeline's last update left, where that scan had the same
        shape (its text but for the source and the numbers: the same columns), in one
        statement; else (or should the table have gone, or differ) made again."""
        shape = batch_shape(self.render("fit/batch.sql", **context), context["source"])
        if shape == self._left_batch:
            try:
                self.run("fit/batch.sql", overwrite=True, **context)
                return
            except self.engine.unreadable_errors:
                pass  # (dropped by another writer, or other columns): made again
        self._left_batch = None
        self.run("fit/batch.sql", **context)
        self._left_batch = shape

    def _probe(self, features: list[dict[str, Any]], weighted: bool,
               checks: list[dict[str, Any]]) -> dict[str, Any]:
        """``fit/batch_probe.sql``'s answers about the batch table just written: the features
        with non-finite sums (of ``checks``), its size, the cancelling features and the
        problems that refuse it. A feature may come once per class, and the size in parts
        (no DISTINCT and no aggregate where the batch has a row per class: on Spark each is
        one more shuffle, so one more job)."""
        answer: dict[str, Any] = {"nan": [], "size": 0, "labelled": 0, "cancelling": set(),
                                  "problems": []}
        for kind, feature, problem in self.fetch_planned("fit/batch_probe.sql", features=features,
                                                         weighted=weighted, checks=checks,
                                                         shifted=self.family.shifted):
            if kind == "nan":
                if feature not in answer["nan"]:
                    answer["nan"].append(feature)
            elif kind == "size":
                answer["size"] += int(feature)
                answer["labelled"] += int(problem or 0)
            elif kind == "cancelling":
                answer["cancelling"].add(feature)
            elif kind == "origin":  # a long batch's origins (the double's exact text)
                answer.setdefault("origins", {})[feature] = float(problem)
            else:
                answer["problems"].append((feature, problem))
        return answer

    def take_labelled(self) -> int | None:
        """The number of labelled rows the scan of this write counted (None: not counted,
        e.g. a model of parts); forgotten once taken."""
        labelled, self._labelled = self._labelled, None
        return labelled

    def check_batch(self, features: list[dict[str, Any]], **context: Any) -> None:
        """Refuse the batch if it has problems (missing values under missing='error', the
        family's own checks): as :meth:`scan` found them, else asked now."""
        problems, self._batch_problems = self._batch_problems, None
        if problems is None:
            problems = self.fetch("fit/batch_checks.sql", features=features, **context)
        refuse(problems)

    def refuse_non_finite(self, src: Source, target_sql: str, features: list[dict[str, Any]],
                          family_of: Any) -> None:
        """Refuse features whose sums stay non-finite with NaN read as missing, saying which
        of their values is the cause (an infinity, or values too large to square)."""
        row = self.fetch("fit/non_finite.sql", source=src.sql, target=target_sql,
                         features=features)[0]
        refuse(non_finite_problems(features, row, family_of))

    def refuse_empty(self, src: Source, spec: dict[str, Any]) -> None:
        """The error for a batch without a labelled row: no rows, or only NULL targets."""
        n_rows, _ = self.fetch("catalog/sources.sql#info", source=src.sql, target=spec["target_sql"])[0]
        if n_rows == 0:
            raise EmptyInputError("the source has no rows")
        raise EmptyInputError(f"the target column {spec['target']!r} has only NULL values")

    def _rescan_cancelling(self, src: Source, spec: dict[str, Any],
                           cancelling: set[str]) -> None:
        """Scan again, around per-class shifts, the features whose sums cancelled too much.

        The first scan sums every feature around one shift (no join: it runs at the speed
        of a plain scan). Where a class lies far from that shift relative to its spread,
        the batch is redone with each class's own mean as the shift of those features.
        """
        features = spec["features"]
        weighted = spec["weight"] is not None
        self._batch_problems = None  # a new batch table: its checks are asked again
        rescan = [f for f in features if f["name"] in cancelling]
        self.run("fit/class_shifts.sql", features=rescan, weighted=weighted)
        self._made_shifts = True
        self._left_batch = None  # (the batch table is made again, of other columns)
        self._kept_key = None  # the batch table is made again, with other columns
        for f in rescan:
            f["class_shift"] = True
        self.run("fit/batch.sql", source=src.sql, target=spec["target_sql"],
                 weight=spec["weight_sql"], features=features,
                 batch_options=self.family.batch_options())

    def scan_sparse(self, entries: Source, rows: Source, row: str, target: str,
                    weight: str | None) -> None:
        """The batch of sparse (row, feature_index, value) input, checked; one scan."""
        ident = self.engine.dialect.ident
        self.run("fit/batch_sparse.sql", entries=entries.sql, rows=rows.sql, row=ident(row),
                 target=ident(target), feature=ident("feature_index"),
                 value_column=ident("value"), by_name=False, distinct_rows=False,
                 weight=None if weight is None else ident(weight),
                 binarize=self.family.params.get("binarize"))
        if self.fetch("fit/counts.sql#batch_rows")[0][0] == 0:
            raise EmptyInputError("there are no labelled rows in the batch")
        self.check("fit/batch_checks_sparse.sql", needs_non_negative=self.family.has_batch_checks)

    # ------------------------------------------------------------------ 3. apply
    def apply(self, features: list[dict[str, Any]], *, weighted: bool, sign: int = 1,
              checked: bool = False, fresh: bool = False, refill: bool = False,
              **context: Any) -> None:
        """Check the batch (unless ``checked``), then upsert its statistics with ``sign``;
        ``fresh``: the statistics tables are new and empty (a fit), the batch's rows are
        inserted as they are (``refill``: into the tables of an earlier fit of the same
        shape, emptied by the same statement, see :meth:`create`)."""
        if not checked:
            self.check_batch(features, **context)
        if fresh:
            context["t"] = {**self.tables, "fresh": True, "refill": refill}
        self.run_planned("update/merge.sql", features=features, weighted=weighted, sign=sign,
                         **context)

    def apply_sparse(self, *, sign: int = 1) -> None:
        """Upsert a (checked) sparse batch with ``sign``."""
        self.run("update/merge_sparse.sql", sign=sign)

    def apply_model(self, tables: dict[str, Any], *, sign: int = 1,
                    origins: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None = None,
                    ) -> None:
        """Another model's statistics (its quoted ``tables``) as one more batch;
        ``origins``: its features' and this model's (metadata entries), whose Gaussian
        origins differ by the amount the other model's relative means move."""
        shifts = []
        if origins is not None:
            theirs, ours = feature_origins(origins[0]), feature_origins(origins[1])
            shifts = [(name, origin - ours.get(name, 0.0)) for name, origin in theirs.items()
                      if origin != ours.get(name, 0.0)]
        self.run("update/merge_model.sql", source=tables, sign=sign, origin_shifts=shifts)

    # ------------------------------------------------------------------ 4. finish
    def finish(self, features: list[dict[str, Any]], target: str, target_type: str,
               weight: str | None, *, scoring_macros: bool = True,
               kind: dict[str, Any] | None = None, known_classes: int | None = None,
               macros_current: bool = False, meta_columns: bool = False,
               fresh: bool = False, refill: bool = False) -> None:
        """After the upserts: class checks, parameter views, sanity checks and metadata.

        ``scoring_macros=False`` (long-input models, which a row-wise macro cannot
        score) drops any macros an earlier fit of the same name left behind. ``kind`` is
        the input kind and group columns the metadata records (see :mod:`sqlnb.spec`).
        ``known_classes``: the number of classes of an update's model before the batch,
        when its hyperparameters are unchanged: if the batch added or removed no class, the
        parameter views (which read the statistics) are current and are left as they are,
        and so is the view ``<name>_scoring_params`` if ``macros_current``. The macros are
        re-created; a write without macros drops those an earlier write left.
        ``meta_columns``: the metadata table has every column of today's layout (as the
        update's read of it found). ``fresh``: a new model of one dense scan, whose classes
        are the batch's (counted by the scan: no count of the statistics). ``refill``: a
        fit into the tables of an earlier fit of the same shape (see :meth:`create`), whose
        parameter views have the text this write would give them: they are kept.
        """
        kind = {"input": "columns", "groups": [], **(kind or {}), "parts": [self.family.name]}
        self.settle_copies(carry=True)
        if self._keeps_batch():
            self.run_planned("update/drop_batch.sql", keep_batch=True, shifts=self._made_shifts)
        elif self._overwrites_batch:
            self.run("update/drop_batch.sql", leave_batch=True, shifts=self._made_shifts)
        else:
            self._left_batch = None
            # (the per-class shifts table only where this write's scan made one)
            self.run("update/drop_batch.sql", shifts=self._made_shifts)
        self._long = False
        scanned, self._scanned_classes = self._scanned_classes, None
        staged = "next_meta" in self.tables
        context = self.params_context()
        functions = staged and self.sql_macros and scoring_macros
        new_version = self.staged_context() if staged else None
        if new_version is not None:
            # a staged write's new version is read by no one until the switch: its
            # metadata is written first, then the class count, the checks, the new
            # metadata row and the parameters are read in one go (a failure below drops
            # the new version all the same); the scratch parameter views over it are
            # created only if a statement reads them (where the engine answers those reads
            # from a copy of the statistics, none does)
            self.engine.defer(self.render("score/params.sql", **context))
            self.write_meta(features, target, target_type, weight, kind,
                            has_columns=meta_columns)
            self._read_back(new_version, features, context, fresh=fresh, functions=functions)
        n_classes = self.check_classes(self.family.min_classes,
                                       self.family.name + " naive Bayes",
                                       scanned if fresh else None)
        self.family.check_priors(n_classes)
        structural = n_classes != known_classes
        if structural and not staged and not refill:  # (a refill's views are current)
            self.run("score/params.sql", **context)
        elif structural:
            # staged: the views readers use come after the switch (their text only
            # changes with the classes or the hyperparameters)
            self._params_context = context
        if staged:
            refuse(self.fetch_planned("fit/checks.sql", features=features))
        else:
            self.refuse_problems(features)
        if not staged:
            self.write_meta(features, target, target_type, weight, kind,
                            has_columns=meta_columns)
        if staged and (self.sql_macros or not scoring_macros):
            # the functions' text from the new version's parameters, read now (the staged
            # tables, one view deep); written after the switch
            assert new_version is not None
            text = (macros.functions_text(new_version, self.owner,
                                          kept_shape=not structural and not fresh)
                    if functions else False)
            self._functions_after_switch = text or False
        elif self.sql_macros and scoring_macros:
            # the macros hold the parameters: re-created at every write (the view they
            # read where the weight matrix does not apply only when it is not current)
            macros.create_macros(self.owner, view=structural or not macros_current)
        elif not scoring_macros or self.sql_macros:
            # a model with no stored scoring (long input): none left from an earlier write
            macros.drop_macros(self.owner)
        elif self.engine.dialect.stored_scoring == "macros":
            # a write without macros: macros an earlier write left hold the parameters it
            # changes, so they go with the view (they fail, never answer stale), and the
            # next write with macros creates them again
            macros.drop_macros(self.owner)
        self.engine.forget_prefetched()  # (what no read took)

    def refuse_problems(self, features: list[dict[str, Any]]) -> None:
        """Refuse the merged statistics if they have problems: the family's quick checks
        (no parameter view to plan), and the full ones only where those ask for them."""
        problems = self.fetch_planned("fit/checks.sql", features=features, quick=True)
        if any(problem == RECHECK for _, problem in problems):
            problems = self.fetch_planned("fit/checks.sql", features=features)
        refuse(problems)

    def _read_back(self, new_version: ModelContext, features: list[dict[str, Any]],
                   context: dict[str, Any], *, fresh: bool, functions: bool) -> None:
        """What a staged write reads back before its switch, in one statement: the class
        count (unless ``fresh``: the scan counted it), the checks of the statistics and,
        where it compiles scoring functions, the new metadata row and the parameters.
        Where the engine copies tables locally (Spark, see ``Engine.read_tables``), that
        statement reads the new metadata row and the statistics tables, and the parameter
        views (those of ``score/params.sql``), the count, the checks and the parameters
        are derived from the copy in the driver (the same templates): each of those
        queries over the parameter views costs Spark a job per stage. The answers wait
        for the reads of the same texts that follow."""
        reads: list[tuple[str, dict[str, Any]]] = (
            [] if fresh else [("fit/counts.sql#class_count", {})])
        reads.append(("fit/checks.sql", {"features": features}))
        meta_row = [new_version.render("catalog/read_meta.sql#row")] if functions else []
        copied = {role: self.tables[role] for role in (*PENDING_ROLES, *TERM_ROLES)
                  if "next_" + role in self.tables}  # (a term model's: staged)
        local_names = {role: f"{self.name}_{role}" for role in (*copied, "class_params",
                                                                 "feature_params")}
        also = [sql for sql, rows in self._with_write.items() if rows is None]
        found = self.engine.read_tables(meta_row + also, {local_names[role]: table
                                                          for role, table in copied.items()})
        if found is None:
            self.engine.prefetch([self.render_repeated(t, **extra) for t, extra in reads]
                                 + meta_row)
            return
        answers, copies = found
        self.engine.prefill(dict(zip(meta_row, answers)))
        self._with_write.update((sql, rows) for sql, (_, rows) in
                                zip(also, answers[len(meta_row):]))
        try:
            derived = self._derived(copies, local_names, new_version, reads, context,
                                    functions=functions)
        except Exception:  # noqa: BLE001 - the engine answers each read itself, as before
            derived = {}  # (a model whose reads name more than its statistics)
        self.engine.prefill(derived)

    def _derived(self, copies: dict[str, Any], local_names: dict[str, str],
                 new_version: ModelContext, reads: list[tuple[str, dict[str, Any]]],
                 context: dict[str, Any], *, functions: bool
                 ) -> dict[str, tuple[list[str], list[tuple]]]:
        """The answers of ``reads`` and (``functions``) of the parameter reads of
        ``new_version``, by their text on the model's engine, derived in an in-process
        DuckDB database from ``copies`` of the statistics (see :meth:`_read_back`)."""
        local = of_tables(copies)
        try:
            ident = local.dialect.ident
            tables = {**self.tables, **{role: ident(name) for role, name in local_names.items()}}

            def rendered(template: str, **extra: Any) -> str:
                return local.render(template, **template_context(tables, self.name, self.family,
                                                                 **extra))

            local.execute(rendered("score/params.sql", **context))
            derived = {self.render_repeated(t, **extra): local.fetch_with_names(rendered(t, **extra))
                       for t, extra in reads}
            if functions:
                derived.update({new_version.render(t, **extra):
                                local.fetch_with_names(rendered(t, **extra))
                                for t, extra in compiler.parameter_reads(new_version)})
            return derived
        finally:
            local.connection.close()  # (the copy is this write's alone)

    def check_classes(self, needed: int, what: str = "this model",
                      known: int | None = None) -> int:
        """A model needs ``needed`` classes (two for most families); returns how many
        (``known``: counted already)."""
        n_classes = self.fetch_planned("fit/counts.sql#class_count")[0][0] if known is None else known
        if n_classes < needed:
            raise InvalidDataError(
                f"{what} needs at least {needed} classes; the target has {n_classes}"
            )
        return n_classes

    def write_meta(self, features: list[dict[str, Any]], target: str, target_type: str,
                   weight: str | None, kind: dict[str, Any],
                   feature_keys: tuple[str, ...] = ("name", "type"),
                   has_columns: bool = False) -> None:
        """(Re)write the metadata row: what the model is, and the relations it owns.
        ``has_columns``: the table is known to have today's columns (nothing to add: the
        statement is then planned, in an update)."""
        (self.run_planned if has_columns else self.run)(
            "catalog/write_meta.sql",
            has_columns=has_columns,
            create=self.staged(),
            schema_version=SCHEMA_VERSION,
            params_json=json.dumps(jsonable(self.family.params)),
            target=target,
            target_type=target_type,
            weight=weight,
            features_json=json.dumps([feature_entry(f, feature_keys) for f in features]),
            spec_json=json.dumps(kind),
            version=__version__,
            relations_json=ownership.relations_json(self.owner),
        )


def batch_shape(sql: str, source: str) -> str:
    """A batch scan's text without its source and its numbers (shifts, sizes): two scans
    of one shape write the same columns."""
    return _NUMBER.sub("#", sql.replace(source, ""))


_NUMBER = re.compile(r"(?<![\w`])[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")


def feature_entry(f: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """A feature's entry in the metadata: ``keys`` and, for a Gaussian feature, the origin
    its stored class means are relative to (absent when 0, as in every model saved
    before origins were kept)."""
    entry = {k: f[k] for k in keys}
    if f.get("origin"):
        entry["origin"] = float(f["origin"])
    return entry


def feature_origins(entries: list[dict[str, Any]]) -> dict[str, float]:
    """Feature name -> the origin its stored class means are relative to, from metadata
    entries (0 where none is recorded)."""
    return {f["name"]: f.get("origin", 0.0) for f in entries}


def refuse(problems: list[tuple]) -> None:
    """Raise the data error describing ``problems`` ((feature, problem) rows), if any."""
    if problems:
        raise InvalidDataError(describe_problems(problems))


def pipeline_of(model: ModelContext) -> Pipeline:
    """The fit flow of ``model`` (kept with what was read of it, built again when its
    family, relations, engine or macros setting change)."""
    key = (model.family, model.tables["meta"], model.engine, model.sql_macros)
    state = model.state
    if state.pipeline is None or state.pipeline_key != key:
        state.pipeline = Pipeline(model.engine, model.family, model.name, dict(model.tables),
                                  model, sql_macros=model.sql_macros)
        state.pipeline_key = key
    return state.pipeline
