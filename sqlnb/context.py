"""What the layers below the facade know of a model: a :class:`ModelContext`.

The facade (:class:`sqlnb.NaiveBayes`) builds one context per model and hands it down;
the flows, the compiler, the scoring and the ownership code take it instead of the facade
and never call back into it. A context is a frozen value: the engine, the model's name,
its family and settings, and the layout of its relation names by role (:func:`relations`,
the one table of those names). What is read of the stored model — the metadata row, the
scoring parameters, how a term model reads its input — is read lazily, once per model
version, into the context's :class:`StoredState`, which the facade shares; a write says
it changed the model by calling :meth:`ModelContext.invalidate` (the next use reads again).

A context needs readers that live above it (the parameters of a text or ``family="auto"``
model are read by :mod:`sqlnb.text` and :mod:`sqlnb.mixed`): the facade passes them as
plain functions of a context (:class:`Readers`), so nothing here imports upwards.

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i * 1.0 AS x FROM range(8) r(i)")
>>> model = sqlnb.NaiveBayes("demo", con=con).fit("t", "y")
>>> context = model.context
>>> context.tables["class_stats"], relation_name("demo", "class_stats")
('"demo_class_stats"', 'demo_class_stats')
>>> context.classes_, context.meta["target"]
([0, 1], 'y')
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import IncompatibleModelError, NotFittedError
from .families import Family
from .spec import SCHEMA_VERSION, ModelSpec, newer_schema_error

if TYPE_CHECKING:  # pragma: no cover
    from .engines.base import Engine
    from .engines.dialects import Dialect

# The relations of a model, by role: the role's name pattern ({name}: the model's name).
# Every other module takes the names from here (quoted, through ``ModelContext.tables``).
RELATIONS = {
    "meta": "{name}_meta",
    "class_stats": "{name}_class_stats",
    "features": "{name}_features",
    "feature_stats": "{name}_feature_stats",
    "class_params": "{name}_class_params",
    "feature_params": "{name}_feature_params",
    # scratch tables of a write
    "batch": "__sqlnb_batch_{name}",
    "shifts": "__sqlnb_shifts_{name}",
    # term models (text and long input): see sqlnb/text.py
    "analyzer": "{name}_analyzer",
    "vocabulary": "{name}_vocabulary",
    "terms": "__sqlnb_terms_{name}",
    # the parameters the scoring macros read (see sqlnb/macros.py)
    "scoring_params": "{name}_scoring_params",
    # the one-row view of the parameters the explain macro reads (see sqlnb/macros.py)
    "explain_params": "{name}_explain_params",
}
# The roles users and SQL clients see (``NaiveBayes.table_names``).
USER_ROLES = ("meta", "class_stats", "features", "feature_stats", "class_params",
              "feature_params")
# The columns every metadata row has (a relation without them is no model's metadata).
META_COLUMNS = {"schema_version", "model", "family", "params"}


def relation_name(name: str, role: str) -> str:
    """The unquoted name of model ``name``'s relation of ``role``."""
    return RELATIONS[role].format(name=name)


def relations(engine: Engine, name: str, catalog: str | None = None) -> dict[str, str]:
    """Model ``name``'s relations by role, quoted for SQL (on Spark, in the engine's
    database); ``catalog``: a database attached under that name."""
    names = {role: engine.table(relation_name(name, role)) for role in RELATIONS}
    if catalog is not None:
        prefix = engine.dialect.ident(catalog)
        names = {role: f"{prefix}.{quoted}" for role, quoted in names.items()}
    return names


@dataclass(eq=False)
class StoredState:
    """What was read of the stored model (None: not read yet), and the ownership record
    of the write under way (see :mod:`sqlnb.ownership`). Shared by the contexts of one
    model object."""

    meta: dict[str, Any] | None = None
    compiled: dict[str, Any] | None = None
    term_input: tuple | None = None
    spec: tuple[dict[str, Any], ModelSpec] | None = None
    meta_kind: str | None = None  # the kind of relation holding the metadata
    scoring_params_kind: str | None = None  # of the view the scoring macros read
    explain_params_kind: str | None = None  # of the view the explain macro reads
    owned_relations: set[str] | None = None
    claimed_relations: list[str] | None = None
    pipeline: Any = None  # the model's cached sqlnb.pipeline.Pipeline (pipeline.of)
    pipeline_key: tuple | None = None
    # what a staged write read of its new version (meta, parameters), for the next use
    after_write: tuple[dict[str, Any], dict[str, Any]] | None = None
    # set while a write re-creates the scoring macros in its transaction (the metadata
    # table is there, as written or read by it): the metadata is read again without a
    # look at the catalog (the kinds above stay as read)
    meta_written: bool = False
    # the metadata read's look at the catalog inside a write: (the engine's catalog
    # generation then, the names asked, lowercased, and the kinds of those present), which
    # ownership.existing answers from while the generation is the same
    catalog_look: tuple[Any, frozenset[str], dict[str, str]] | None = None


@dataclass(frozen=True)
class Readers:
    """How the stored parts above this layer are read, as plain functions of a context:
    the scoring parameters (``parameters``, the groups included), how a term model reads
    its input (``stored_input``) and the spec of a schema-1 model (``derive_kind``)."""

    parameters: Callable[[ModelContext], dict[str, Any]]
    stored_input: Callable[[ModelContext], tuple | None]
    derive_kind: Callable[[ModelContext], dict[str, Any]]


@dataclass(frozen=True, eq=False)
class ModelContext:
    """A model as the layers below the facade see it (see the module docstring)."""

    engine: Engine
    name: str
    family: Family
    readers: Readers
    sql_macros: bool = True
    scoring: str = "auto"
    catalog: str | None = None  # a model of a database attached as ``catalog``
    state: StoredState = field(default_factory=StoredState)
    tables: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.tables:
            object.__setattr__(self, "tables", relations(self.engine, self.name, self.catalog))

    @property
    def dialect(self) -> Dialect:
        return self.engine.dialect

    def renamed(self, name: str, **changes: Any) -> ModelContext:
        """A model of another name on the same engine (nothing read is shared)."""
        return dataclasses.replace(self, name=name, state=StoredState(), tables={},
                                   **changes)

    # ------------------------------------------------------------------ statements
    def template_context(self, family: Family | None = None, **extra: Any) -> dict[str, Any]:
        """The template context of the model (or of one of its parts' ``family``)."""
        return template_context(self.tables, self.name, family or self.family, **extra)

    def render(self, template: str, **context: Any) -> str:
        return self.engine.render(template, **self.template_context(**context))

    def run(self, template: str, **context: Any) -> None:
        self.engine.execute(self.render(template, **context))

    def fetch(self, template: str, **context: Any) -> list[tuple]:
        return self.engine.fetch(self.render(template, **context))

    def fetch_with_names(self, template: str, **context: Any) -> tuple[list[str], list[tuple]]:
        return self.engine.fetch_with_names(self.render(template, **context))

    # ------------------------------------------------------------------ stored model
    def invalidate(self) -> None:
        """Forget what was read of the stored model (metadata, parameters, input kind): the
        next use reads it again."""
        self.state.meta = None
        self.state.compiled = None
        self.state.term_input = None
        self.engine.forget_prepared()  # statements planned with what was read

    @property
    def cached_fitted_at(self) -> Any:
        """When the model was written, as the cached metadata says; None when the metadata
        or the parameters are not cached (see :func:`sqlnb.scoring.refresh`). What a
        staged write kept (:meth:`keep_after_write`) is taken up here: its stamp is
        checked like any."""
        state = self.state
        if (state.meta is None or state.compiled is None) and state.after_write is not None:
            state.meta, state.compiled = state.after_write
        state.after_write = None
        if state.meta is None or state.compiled is None:
            return None
        return state.meta["fitted_at"]

    def keep_after_write(self, staged: ModelContext) -> None:
        """Keep what ``staged`` (this model's context over a staged write's new version,
        read before the switch: engines without transactions) read of its metadata and
        parameters, for this model's first use after the write, which then reads only the
        version stamp: they are used only if the stamp (``fitted_at``) is still theirs."""
        if staged.state.meta is not None and staged.state.compiled is not None:
            self.state.after_write = (staged.state.meta, staged.state.compiled)

    @property
    def meta(self) -> dict[str, Any]:
        """The model's metadata row (family, hyperparameters, features, classes…)."""
        if self.state.meta is None:
            self.state.meta = self._read_meta()
        return self.state.meta

    def _read_meta(self) -> dict[str, Any]:
        meta_name = relation_name(self.name, "meta")
        local = self.catalog is None  # not a model of an attached database
        rows: list[tuple] = []
        names: list[str] = []
        # the kind of relation holding it (ownership reads its record from a table), and
        # of the parameter view the scoring macros read (asked in the same look)
        params_name = relation_name(self.name, "scoring_params")
        explain_name = relation_name(self.name, "explain_params")
        if not self.state.meta_written:
            # inside a write, the model's other tables are asked in the same look (the
            # write's release of its earlier ones then takes it: no second look)
            generation = self.engine.catalog_generation() if local else None
            asked = [meta_name.lower(), params_name.lower(), explain_name.lower()] + (
                [relation_name(self.name, role).lower() for role in USER_ROLES[1:]]
                if generation is not None else [])
            kinds = self.engine.relations(asked, []) if local else {}
            self.state.catalog_look = (
                None if generation is None else (generation, frozenset(asked), kinds))
            self.state.meta_kind = kinds.get(meta_name.lower())
            self.state.scoring_params_kind = kinds.get(params_name.lower())
            self.state.explain_params_kind = kinds.get(explain_name.lower())
        if (local and self.state.meta_kind is None and "next_meta" not in self.tables
                and not self.state.meta_written):
            # asked of the catalog: a failed read would abort a transaction (a staged
            # write's new version is read through its tables, which the catalog lacks)
            pass
        else:
            try:
                names, rows = self.fetch_with_names("catalog/read_meta.sql#row")
            except self.engine.missing_relation_errors:
                rows = []
            if not META_COLUMNS <= set(names if rows else ()):
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
        return meta

    @property
    def spec(self) -> ModelSpec:
        """What kind of model this is, as its metadata row says (see :mod:`sqlnb.spec`)."""
        meta = self.meta
        cached = self.state.spec
        if cached is None or cached[0] is not meta:
            cached = self.state.spec = (
                meta, ModelSpec.from_meta(meta, derive=lambda: self.readers.derive_kind(self)))
        return cached[1]

    def stored_input(self) -> tuple | None:
        """For a term model, how it reads its input (kind, options, n_documents)."""
        if self.state.term_input is None:
            self.state.term_input = self.readers.stored_input(self) or ()
        return self.state.term_input or None

    @property
    def input_kind(self) -> str:
        """How the model reads its input, as its term tables record it: ``text`` (a text
        column, tokenised), ``long`` (a long table of document, term, value) or ``columns``
        (features read as they are, sparse input's included)."""
        stored = self.stored_input()
        return stored[0] if stored else "columns"

    def one_column_part(self) -> bool:
        """Whether the model is one part: one family over its columns as they are (not
        ``family="auto"``, no group key, no text or long input)."""
        return not (self.family.composite or self.spec.grouped or self.stored_input())

    @property
    def reads_terms(self) -> bool:
        """Whether the model's features are terms derived from its input (text or long
        input: one part over a vocabulary, updated by the term updates and scored by a
        join of each row's terms) rather than columns read as they are."""
        return bool(self.stored_input())

    def joins_category_lookups(self) -> bool:
        """Whether the scoring statement may leave the categories of a feature with many
        in the database and join them: where the engine joins lookups, and not for a
        per-group model (its group tables read the pooled categories as the statement
        inlines them)."""
        return self.dialect.joins_lookups and not self.spec.grouped

    def writes_in_parts(self, groups: Any = None, *, stored: bool = True) -> bool:
        """Whether a write of the model over columns runs the parts flow
        (:func:`sqlnb.parts.write`) rather than the pipeline's own steps for one family:
        with a family per column, with ``groups`` (the write's group columns, if any) or,
        when ``stored`` (the model is fitted), with the groups the stored model has."""
        return bool(groups) or self.family.composite or (stored and self.spec.grouped)

    def feature_params_name(self, feature: str) -> str:
        """The (unquoted) name of the parameter view holding ``feature``'s parameters: the
        model's ``feature_params`` for a feature of the model's own family, else the view
        of the part of the feature's family (``<name>_<family>_params``)."""
        family = self.families_[feature]
        if family == self.meta["family"]:
            return relation_name(self.name, "feature_params")
        return f"{self.name}_{family}_params"

    def parameters(self) -> dict[str, Any]:
        """Read the (small) parameter views once, for the per-class scoring expressions.

        Everything scoring needs (metadata, groups, parameters) is read in one read
        transaction, so a refit committed by another cursor meanwhile is either wholly
        seen or not at all (see ``Engine.snapshot``)."""
        if self.state.compiled is not None:
            return self.state.compiled
        with self.engine.snapshot():
            self.state.meta = None
            self.state.term_input = None
            try:
                compiled = self.readers.parameters(self)
            except self.engine.missing_relation_errors as exc:
                # the meta row is there, but a table or view it needs is not
                raise IncompatibleModelError(
                    f"model {self.name!r} is incomplete, a relation it needs is missing "
                    f"({str(exc).splitlines()[0]}): fit it again, or drop it"
                ) from None
        self.state.compiled = compiled
        return compiled

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
        return [label for _, label, _ in self.parameters()["classes"]]

    @property
    def target(self) -> str:
        return self.meta["target"]


def template_context(tables: dict[str, str], name: str, family: Family, /,
                     **extra: Any) -> dict[str, Any]:
    """The context every model template is rendered in: its relations (``t``), name and
    the facts of ``family`` (the model's or one of its parts')."""
    return {
        "t": tables,
        "model": name,
        "family_name": family.name,
        "family_template": family.template,
        "family_has_batch": family.has_batch,
        "family_long_batch": family.long_batch,
        "family_has_batch_checks": family.has_batch_checks,
        "family_statistics_shape": family.statistics_shape,
        "family_scoring_parameters": family.scoring_parameters,
        "p": family.params,
        **extra,
    }



def as_context(model: Any) -> ModelContext:
    """The context of ``model``: a context itself, or a model object (what users pass to
    the few functions below the facade they call, such as :func:`sqlnb.text.top_terms`)."""
    return model if isinstance(model, ModelContext) else model.context


def refuse_newer(context: ModelContext) -> dict[str, Any] | None:
    """A model of this name written by a newer sqlnb is not overwritten either. Returns the
    metadata row read (None: no model's), which a write reading it inside its transaction
    gives :func:`sqlnb.ownership.claim` (no second look at the catalog)."""
    context.state.meta = None
    meta = None
    try:
        meta = context.meta
    except NotFittedError:
        pass
    except IncompatibleModelError as exc:
        if exc.newer:
            raise
    context.state.meta = None
    return meta
