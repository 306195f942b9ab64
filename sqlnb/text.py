"""Text and long (document, feature, value) input for the count families.

A *term model* is a multinomial, complement or bernoulli model whose features are terms:
the words and n-grams of a text column, or the feature keys of a long table. Everything
scikit-learn's ``CountVectorizer``/``TfidfVectorizer`` do in Python happens in DuckDB here:
tokens come from ``regexp_extract_all`` per row, term counts from a per-row histogram,
document frequencies, vocabulary pruning and idf from GROUP BY. The vocabulary and idf are
model tables (``<name>_vocabulary``), the analyzer's settings a one-row table
(``<name>_analyzer``), so ``predict`` and :func:`sqlnb.load` tokenise the same way.

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute(
...     "CREATE TABLE mail AS SELECT * FROM (VALUES ('win money now', 'spam'),"
...     " ('meeting at noon', 'ham'), ('cheap money offer', 'spam'), ('lunch at noon?', 'ham'))"
...     " AS t(body, label)")
>>> model = sqlnb.NaiveBayes("mail_nb", con=con, family="multinomial")
>>> _ = model.fit("mail", "label", text="body")
>>> model.predict("mail").fetchall()[0]
('win money now', 'spam', 'spam')

Python's ``re`` and DuckDB's RE2 differ: RE2's ``\\w``, ``\\d``, ``\\s`` and ``\\b`` are
ASCII-only. :func:`translate_pattern` rewrites the classes into Unicode ones and drops the
``\\b`` that only guard a run of word characters; see ``docs/text.md`` for what remains
different.
"""

from __future__ import annotations

import json
import numbers
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING, Any

import duckdb

from . import grouping, macros, ownership
from .context import as_context
from .engines.source import Source
from .errors import (
    EmptyInputError,
    IncompatibleModelError,
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
    UnknownColumnError,
    UnsupportedError,
)
from .families import FAMILIES
from .pipeline import pipeline_of
from .stop_words import ENGLISH_STOP_WORDS
from .validation import (
    check_flag,
    check_label_type,
    check_output_clashes,
    check_weight_type,
    check_weights,
)

if TYPE_CHECKING:  # pragma: no cover
    from .context import ModelContext

TOKEN_PATTERN = r"(?u)\b\w\w+\b"
TERM_FAMILIES = tuple(name for name, family in FAMILIES.items() if family.sparse_input)
WIDE_CLASSES = 32  # up to this many classes, the fast path counts with a column per class

# Python's Unicode classes, spelled for RE2 (whose \w, \d, \s are ASCII-only).
_WORD = r"\p{L}\p{N}_"
_SPACE = r"\s\p{Z}\x{85}\x{0B}\x{1C}-\x{1F}"
_CLASSES = {
    "w": ("[" + _WORD + "]", _WORD),
    "W": ("[^" + _WORD + "]", None),
    "d": (r"\p{Nd}", r"\p{Nd}"),
    "D": (r"\P{Nd}", r"\P{Nd}"),
    "s": ("[" + _SPACE + "]", _SPACE),
    "S": ("[^" + _SPACE + "]", None),
}
_WORD_RUN = re.compile(r"^\\w(\\w)*(\+|\*|\{\d*,\})?$")


def translate_pattern(pattern: str) -> tuple[str, int]:
    """Rewrite a Python token pattern for DuckDB's RE2; return it and the group to extract.

    ``\\w``, ``\\W``, ``\\d``, ``\\D``, ``\\s`` and ``\\S`` become their Unicode meaning in
    Python. A ``\\b`` at the start of a pattern that starts with ``\\w``, and at the end of
    one that ends in a repeated ``\\w``, is dropped: matches are taken left to right and
    greedily, so such a pattern only ever matches whole runs of word characters anyway.
    Any other ``\\b`` keeps RE2's ASCII meaning. A pattern with one capturing group yields
    that group, as in scikit-learn.

    >>> translate_pattern(r"(?u)\\b\\w\\w+\\b")
    ('[\\\\p{L}\\\\p{N}_][\\\\p{L}\\\\p{N}_]+', 0)
    """
    if not isinstance(pattern, str) or not pattern:
        raise InvalidParameterError("token_pattern must be a non-empty string")
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise InvalidParameterError(f"token_pattern is not a regular expression: {exc}") from None
    if compiled.groups > 1:
        raise InvalidParameterError(
            "More than 1 capturing group in token pattern. Only a single group should be "
            "captured."
        )
    body = pattern.removeprefix("(?u)")
    if body.startswith(r"\b") and body.endswith(r"\b") and _WORD_RUN.match(body[2:-2]):
        body = body[2:-2]
    out, i, in_class = [], 0, False
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            escaped = body[i + 1]
            if escaped in _CLASSES:
                outside, inside = _CLASSES[escaped]
                if in_class and inside is None:
                    raise InvalidParameterError(
                        f"token_pattern uses \\{escaped} inside a character class, which "
                        "sqlnb cannot translate for DuckDB"
                    )
                out.append(inside if in_class else outside)
            else:
                out.append(body[i:i + 2])
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
            out.append(char)
            if body[i + 1:i + 2] == "^":
                out.append("^")
                i += 1
            if body[i + 1:i + 2] == "]":  # a literal ] first in a class
                out.append(r"\]")
                i += 1
        elif char == "]" and in_class:
            in_class = False
            out.append(char)
        else:
            out.append(char)
        i += 1
    return "".join(out), compiled.groups


def splits_at_spaces(pattern: str) -> bool:
    """Whether the pattern only matches runs of word characters (\\w, \\w+, \\w\\w+...).

    Such a pattern tokenises a document exactly as it tokenises each space-separated chunk
    of it, so sqlnb can run the regular expression once per *distinct* chunk instead of
    once per document: far less work on natural text, whose chunks repeat.
    """
    body = pattern.removeprefix("(?u)")
    if body.startswith(r"\b") and body.endswith(r"\b"):
        body = body[2:-2]
    return bool(_WORD_RUN.match(body))


# The longest n-gram: each n from min_n to max_n is a branch of the statement that lists a
# document's terms (n zipped copies of its tokens), so time and memory grow with max_n
# squared; (1, 20) on 100 documents of 200 words fits in 1.5 s, (1, 200) took 15 s.
MAX_NGRAM = 10


@dataclass
class Analyzer:
    """How text becomes terms and weights: scikit-learn's vectorizer options and defaults.

    ``tfidf=False`` is ``CountVectorizer``; ``tfidf=True`` is ``TfidfVectorizer`` and enables
    ``use_idf``, ``smooth_idf``, ``sublinear_tf`` and ``norm``.
    """

    column: str
    lowercase: bool = True
    token_pattern: str = TOKEN_PATTERN
    ngram_range: tuple[int, int] = (1, 1)
    stop_words: str | list[str] | None = None
    min_df: float | int = 1
    max_df: float | int = 1.0
    max_features: int | None = None
    binary: bool = False
    tfidf: bool = False
    use_idf: bool = True
    smooth_idf: bool = True
    sublinear_tf: bool = False
    norm: str | None = "l2"

    TFIDF_ONLY = ("use_idf", "smooth_idf", "sublinear_tf", "norm")

    @classmethod
    def from_options(cls, column: str, options: dict[str, Any]) -> Analyzer:
        """Validate fit's keyword arguments and build the analyzer."""
        known = {f.name for f in fields(cls)} - {"column"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise InvalidParameterError(
                f"unknown text option(s) {', '.join(unknown)}; the options are "
                f"{', '.join(sorted(known))}"
            )
        if not options.get("tfidf", False):
            given = [k for k in cls.TFIDF_ONLY if k in options]
            if given:
                raise InvalidParameterError(
                    f"{', '.join(given)} only apply to tf-idf weighting: pass tfidf=True"
                )
        analyzer = cls(column=column, **options)
        analyzer.validate()
        return analyzer

    def validate(self) -> None:
        if not isinstance(self.column, str) or not self.column:
            raise InvalidParameterError("text must name a column")
        for flag in ("lowercase", "binary", "tfidf", "use_idf", "smooth_idf", "sublinear_tf"):
            setattr(self, flag, check_flag(flag, getattr(self, flag)))
        ngram = self.ngram_range
        if (not isinstance(ngram, (tuple, list)) or len(ngram) != 2
                or not all(isinstance(n, numbers.Integral) and not isinstance(n, bool)
                           for n in ngram)
                or not 1 <= ngram[0] <= ngram[1] <= MAX_NGRAM):
            raise InvalidParameterError(
                f"ngram_range must be (min_n, max_n) with 1 <= min_n <= max_n <= {MAX_NGRAM}, "
                f"got {ngram!r}"
            )
        self.ngram_range = (int(ngram[0]), int(ngram[1]))
        for name in ("min_df", "max_df"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise InvalidParameterError(f"{name} must be an int or a float, got {value!r}")
            if isinstance(value, numbers.Integral):
                if value < 0:
                    raise InvalidParameterError(f"{name} must be >= 0, got {value!r}")
            elif not 0.0 <= value <= 1.0:
                raise InvalidParameterError(
                    f"{name} as a float is a proportion of documents in [0, 1], got {value!r}"
                )
        mf = self.max_features
        if mf is not None and (isinstance(mf, bool) or not isinstance(mf, numbers.Integral)
                               or mf < 1):
            raise InvalidParameterError(f"max_features must be None or an int >= 1, got {mf!r}")
        if self.norm not in (None, "l1", "l2"):
            raise InvalidParameterError(f"norm must be 'l1', 'l2' or None, got {self.norm!r}")
        sw = self.stop_words
        if sw is not None and sw != "english":
            if isinstance(sw, str) or not all(isinstance(w, str) for w in sw):
                raise InvalidParameterError(
                    "stop_words must be None, 'english' or a list of strings"
                )
            self.stop_words = list(sw)
        translate_pattern(self.token_pattern)

    @property
    def needs_documents(self) -> bool:
        """Whether a term's weight in a document depends on more than its count there."""
        return self.tfidf and (self.use_idf or self.norm is not None)

    @property
    def chunked(self) -> bool:
        """Whether tokens can be found per distinct space-separated chunk (see below)."""
        return self.ngram_range == (1, 1) and splits_at_spaces(self.token_pattern)

    def linear(self, count_sums: bool) -> bool:
        """Whether a document's statistic is a sum over its token occurrences (for a family
        whose statistic is a sum of counts)."""
        return not self.binary and not self.tfidf and count_sums

    def prunes_by_df(self, n_documents: int) -> bool:
        """Whether min_df or max_df can remove a term."""
        low, high = self.doc_bounds(n_documents)
        return low > 1 or high < n_documents

    def stop_list(self) -> list[str]:
        if self.stop_words is None:
            return []
        if self.stop_words == "english":
            return list(ENGLISH_STOP_WORDS)
        return sorted(set(self.stop_words))

    def doc_bounds(self, n_documents: int) -> tuple[float, float]:
        """Document-count bounds [low, high] from min_df and max_df, as CountVectorizer."""
        def count(value: float) -> float:
            if isinstance(value, numbers.Integral):
                return float(value)
            return float(value) * n_documents
        low, high = count(self.min_df), count(self.max_df)
        if high < low:
            raise InvalidParameterError("max_df corresponds to < documents than min_df")
        return low, high

    def sql(self) -> dict[str, Any]:
        """The settings as the templates use them."""
        pattern, group = translate_pattern(self.token_pattern)
        tfidf = self.tfidf
        return {
            "lowercase": self.lowercase,
            "pattern": pattern,
            "group": group,
            "stop_words": self.stop_list(),
            "ngram_min": self.ngram_range[0],
            "ngram_max": self.ngram_range[1],
            "binary": self.binary,
            "use_idf": tfidf and self.use_idf,
            "smooth_idf": self.smooth_idf,
            "sublinear_tf": tfidf and self.sublinear_tf,
            "norm": self.norm if tfidf else None,
        }

    def to_json(self) -> str:
        options = asdict(self)
        options["ngram_range"] = list(self.ngram_range)
        return json.dumps(options)

    @classmethod
    def from_json(cls, text: str) -> Analyzer:
        options = json.loads(text)
        options["ngram_range"] = tuple(options["ngram_range"])
        return cls(**options)


def _check_family(model: ModelContext, what: str) -> None:
    if not model.family.sparse_input:
        raise InvalidParameterError(
            f"{what} needs a count family ({', '.join(TERM_FAMILIES)}), "
            f"not {model.family.name}"
        )


def _scalar_alpha(model: ModelContext) -> float:
    alpha = model.family.params["alpha"]
    if not isinstance(alpha, numbers.Real):
        raise InvalidParameterError(
            "a term model takes a single alpha: its features are only known after fitting"
        )
    return model.family.alphas(1)[0]


def stored_input(model: ModelContext) -> tuple[str, dict[str, Any], int] | None:
    """The model's (input kind, options, n_documents), or None for a column model."""
    try:
        if not model.spec.terms:
            return None
    except NotFittedError:
        return None
    if f"{model.name}_analyzer".lower() not in ownership.owned(model):
        return None  # a relation of that name that is not this model's
    return _read_analyzer(model)


def stored_kind(model: ModelContext) -> str | None:
    """``text`` or ``long`` from the analyzer table (for models written before the spec)."""
    stored = _read_analyzer(model)
    return None if stored is None else stored[0]


def _read_analyzer(model: ModelContext) -> tuple[str, dict[str, Any], int] | None:
    # looked up in the catalog first: a failed read would abort an open transaction
    if not model.engine.relations([f"{model.name}_analyzer".lower()], []):
        return None
    rows = pipeline_of(model).fetch("text/model_tables.sql#analyzer")
    if not rows:
        return None
    kind, options, n_documents = rows[0]
    return kind, json.loads(options), n_documents


def _stored_for_partial(model: ModelContext) -> tuple[str, dict[str, Any], int] | None:
    """The stored input of the model a partial fit updates (None: there is no model yet)."""
    stored = stored_input(model)
    if stored is None:
        try:
            _ = model.meta
        except NotFittedError:
            return None
        raise InvalidParameterError(
            f"model {model.name!r} was fitted on columns; fit() it on text or a long table "
            "before partial_fit"
        )
    return stored


def _check_column(src: Source, name: str | None, what: str) -> None:
    if name is not None and name not in src.columns:
        raise UnknownColumnError(
            f"{what} column {name!r} is not in the source (columns: {', '.join(src.columns)})"
        )


def _in_transaction(model: ModelContext, work) -> None:
    try:
        with model.engine.transaction("fitting a text or long-input model"):
            ownership.claim(model, ownership.names(model.name, "base", "text", "macros"))
            work()
    finally:
        ownership.done(model)
    model.invalidate()


# ---------------------------------------------------------------------- text
def check_re2(model: ModelContext, token_pattern: str) -> None:
    """Python's ``re`` accepted the pattern; the engine's regular expressions must too
    (DuckDB's RE2: no look-around, no back-references; Spark's are Java's)."""
    pattern, _ = translate_pattern(token_pattern)
    try:
        model.engine.fetch(model.engine.render("text/source_checks.sql#regex_check"),
                           [model.dialect.regex(pattern)])
    except model.engine.invalid_argument_errors as exc:
        raise InvalidParameterError(
            f"token_pattern {token_pattern!r} is valid in Python but not in "
            f"{model.dialect.title}'s regular expressions (DuckDB's RE2 has no look-around "
            f"or back-references): {str(exc).splitlines()[0]}; rewrite it without them"
        ) from None


def fit_text(model: ModelContext, source: Any, target: str, column: str | None, *,
             weight: str | None, options: dict[str, Any], partial: bool,
             sign: int = 1, group_by: str | list[str] | None = None) -> None:
    """Fit (or, with ``partial``, update) a term model on a text column; ``sign=-1``
    forgets the documents instead (see :func:`forget_text`). ``group_by`` (a fit only)
    fits one text model per group besides the pooled one (see :func:`fit_groups`)."""
    forgetting = sign < 0
    what = "forgetting text" if forgetting else "fitting a text model"
    model.engine.refuse_open_transaction(what)
    _check_family(model, "a text model")
    alpha = _scalar_alpha(model)
    stored = _stored_for_partial(model) if partial else None
    if forgetting and stored is None:
        raise NotFittedError(f"model {model.name!r} has not learned anything to forget")
    if stored is not None:
        if stored[0] != "text":
            raise InvalidParameterError(f"model {model.name!r} was not fitted on text")
        group_by = _stored_groups(model, group_by)
        analyzer = Analyzer.from_json(json.dumps(stored[1]))
        column = analyzer.column if column is None else column
        if column != analyzer.column:
            raise InvalidParameterError(
                f"model {model.name!r} reads text from {analyzer.column!r}, not {column!r}"
            )
        if options:
            raise InvalidParameterError(
                "the text options are fixed by the first fit; "
                + ("forget" if forgetting else "partial_fit") + " takes none"
            )
    else:
        analyzer = Analyzer.from_options(column, options)
        check_re2(model, analyzer.token_pattern)
    src = model.engine.source(source)
    try:
        _check_column(src, target, "target")
        _check_column(src, column, "text")
        _check_column(src, weight, "weight")
        if weight is not None:
            check_weights(model.engine, src.sql, model.dialect.ident(target), weight,
                          model.dialect.ident(weight))
        if model.dialect.kind(src.columns[column]) != "text":
            raise InvalidDataError(
                f"text column {column!r} has type {src.columns[column]}, not VARCHAR"
            )
        target_type = src.columns[target]
        check_label_type(target, target_type, model.dialect)
        if weight is not None:
            check_weight_type(weight, src.columns[weight], model.dialect)
        if stored is not None and target_type != model.meta["target_type"]:
            raise InvalidDataError(
                f"the target has type {target_type}; the model was fitted on "
                f"{model.meta['target_type']}"
            )
        groups = None if group_by is None else grouping.group_specs(
            src.columns, group_by, target, [{"name": column}], weight, model.dialect)
        if groups is not None and stored is not None:  # the values are keyed by the model's types
            types = dict(model.spec.groups)
            groups = [{**g, "type": types[g["name"]]} for g in groups]
        context = {
            "source": src.sql,
            "target": model.dialect.ident(target),
            "weight": None if weight is None else model.dialect.ident(weight),
            "column": model.dialect.ident(column),
            "a": analyzer.sql(),
            "binarize": model.family.params.get("binarize"),
        }
        fit = TermFit(analyzer=analyzer, alpha=alpha, stored=stored, sign=sign,
                      column={"name": column, "type": src.columns[column]}, target=target,
                      target_type=target_type, weight=weight)

        def work() -> None:
            if groups is not None:
                (fit_groups if stored is None else update_groups)(model, fit, context, groups)
                return
            if stored is None:
                grouping.drop_groups(model)  # of an earlier per-group model
            fit.run(model, context)

        _in_transaction(model, work)
    finally:
        model.engine.release(src)


@dataclass
class TermFit:
    """One text fit's settings: the statements of :meth:`run` write one term model."""

    analyzer: Analyzer
    alpha: float
    stored: tuple[str, dict[str, Any], int] | None
    sign: int
    column: dict[str, Any]
    target: str
    target_type: str
    weight: str | None

    def run(self, model: ModelContext, context: dict[str, Any],
            kind: dict[str, Any] | None = None, scoring_macros: bool = True,
            may_empty: bool = False) -> bool:
        """Fit (update, forget) ``model`` on ``context``'s source, inside the caller's
        transaction. False when a forget left no document (only if ``may_empty``: the
        model is then left unfinished, for the caller to drop)."""
        analyzer, stored, forgetting = self.analyzer, self.stored, self.sign < 0
        flow = pipeline_of(model)
        n_documents = flow.fetch("text/source_checks.sql#count_documents", **context)[0][0]
        if n_documents == 0:
            raise EmptyInputError("there are no labelled documents to "
                                  + ("forget" if forgetting else "fit"))
        from_terms = not analyzer.needs_documents
        if stored is None:
            flow.create(self.target_type, text=True)
        else:
            flow.stage(fresh=False, terms=True)  # engines without transactions
        # The fast path finds tokens once per distinct chunk; it cannot count documents.
        chunks = (analyzer.chunked and analyzer.linear(model.family.count_sums)
                  and (stored is not None or not analyzer.prunes_by_df(n_documents)))
        labels = None
        if chunks:
            found = flow.fetch("text/source_checks.sql#class_labels", limit=WIDE_CLASSES + 1, **context)
            if len(found) <= WIDE_CLASSES:
                labels = [model.dialect.lit(row[0], self.target_type) for row in found]
        if stored is None or from_terms:
            flow.run("text/term_stats.sql", chunks=chunks, labels=labels, **context)
        if stored is None:
            low, high = analyzer.doc_bounds(n_documents)
            flow.run("text/vocabulary.sql", min_count=low, max_count=high,
                     max_features=analyzer.max_features, n_documents=n_documents, **context)
            if flow.fetch("text/model_tables.sql#vocabulary_size")[0][0] == 0:
                raise InvalidDataError(
                    "After pruning, no terms remain. Try a lower min_df or a higher "
                    "max_df." if analyzer.prunes_by_df(n_documents) else
                    "empty vocabulary; perhaps the documents only contain stop words"
                )
            flow.run("text/insert_vocabulary.sql", alpha=self.alpha)
            vocabulary_documents = n_documents
        else:
            vocabulary_documents = stored[2]
        flow.run("text/batch_text.sql", from_terms=from_terms, **context)
        flow.run("text/merge_terms.sql", sign=self.sign)
        flow.run("text/model_tables.sql#drop_terms")
        if forgetting and not _after_forget(model, self.target_type, may_empty):
            flow.keep_unwritten()
            return False
        # the analyzer first: the scoring macros written by finish() read it
        flow.run("text/write_analyzer.sql", input="text", options_json=analyzer.to_json(),
                 n_documents=vocabulary_documents)
        flow.finish([self.column], self.target, self.target_type, self.weight,
                    scoring_macros=scoring_macros and macros_in_finish(model),
                    kind={"input": "text", **(kind or {})})
        if scoring_macros:
            macros_after_write(model)
        return True


def macros_in_finish(model: ModelContext) -> bool:
    """Whether a text model's write creates its scoring macros as it finishes, from the
    tables it wrote, inside its transaction; an engine that stages the write's tables
    (Spark) writes its scoring functions once the write has switched to them
    (:func:`macros_after_write`), from what readers then see."""
    return model.engine.capabilities.transactions


def macros_after_write(model: ModelContext) -> None:
    """Where :func:`macros_in_finish` does not hold: the text model's scoring functions,
    written once the write has switched to its new tables (the write's finish dropped
    those an earlier write left), where the model has them (``sql_macros``)."""
    if not macros_in_finish(model) and pipeline_of(model).sql_macros:
        model.engine.after_write(lambda: macros.create_macros(model))


# ---------------------------------------------------------------------- per-group text
def refuse_grouped(what: str) -> None:
    """An operation per-group text models do not have."""
    raise UnsupportedError(
        f"{what} is not available for per-group text models (group_by with text): "
        "fit the model again on all the rows, or fit one text model per group"
    )


def _stored_groups(model: ModelContext, group_by: str | list[str] | None) -> list[str] | None:
    """The group columns an update of a text model reads: the model's (``group_by`` may
    leave them out, or must name them)."""
    stored = [name for name, _ in model.spec.groups]
    given = [group_by] if isinstance(group_by, str) else group_by
    if given is not None and list(given) != stored:
        raise InvalidParameterError(
            f"model {model.name!r} was fitted "
            + (f"per group of {stored}" if stored else "without group_by")
            + f"; an update takes the same group columns (or none), got group_by={group_by!r}"
        )
    return stored or None


def group_model_name(name: str, index: int) -> str:
    """The name of the text model of a per-group text model's group ``index``."""
    return f"{name}_text_group_{index}"


def _groups_table(model: ModelContext) -> str:
    return f"{model.name}_text_groups"


def _groups_target(model: ModelContext,
                   after: Callable[[bool], None] | None = None) -> tuple[str, bool]:
    """Where a write puts the table of a per-group text model's groups: its quoted name and
    whether the statement replaces the table there. An engine without transactions writes
    a new version, which readers see when the write's block ends, with the new versions of
    the models of the groups (see ``Pipeline.stage``); ``after(switched)`` runs then, after
    the switches of every model the write stages from here on."""
    name = _groups_table(model)
    if model.engine.capabilities.transactions:
        return model.dialect.ident(name), True
    version = model.engine.stage([name], after or (lambda switched: None))
    return model.engine.version_table(name, version), False


def _write_groups(model: ModelContext, groups: list[dict[str, Any]], rows: list[list[Any]],
                  target: tuple[str, bool] | None = None) -> None:
    """Write the table of a per-group text model's groups (``rows``: index, then the
    group values as SQL literals) inside the caller's transaction, at ``target`` (from
    :func:`_groups_target`; by default where it says now)."""
    table, replace = target or _groups_target(model)
    model.run("text/write_groups.sql", table=table, groups=groups, rows=rows,
              replace=replace)


def fit_groups(model: ModelContext, fit: TermFit, context: dict[str, Any],
               groups: list[dict[str, Any]]) -> None:
    """A per-group text model, inside the caller's transaction: the pooled model over
    every labelled row in the model's own tables, and for each group of the labelled rows
    (no group column NULL) a text model of its own, ``<name>_text_group_<i>``, fitted on
    that group's rows alone (its own vocabulary, same analyzer options and
    hyperparameters). ``<name>_text_groups`` maps the group values to ``i``."""
    flow = pipeline_of(model)
    values = flow.fetch("text/group_values.sql", groups=groups, **context)
    if not values:
        raise InvalidDataError(
            f"the group column(s) {[g['name'] for g in groups]} are NULL in every labelled "
            "row, so there is no group to fit a model for: leave group_by out, or fill the "
            "column first"
        )
    subs = [model.renamed(group_model_name(model.name, i)) for i in range(len(values))]
    needed = (ownership.names(model.name, "base", "text", "macros") + [_groups_table(model)]
              + [n for sub in subs for n in ownership.names(sub.name, "base", "text",
                                                            "macros")])
    ownership.claim(model, needed)
    grouping.drop_groups(model)  # the earlier groups' models and tables (refitted below)
    kind = {"groups": [[g["name"], g["type"]] for g in groups]}
    fit.run(model, context, kind=kind, scoring_macros=False)
    rows = []
    for index, (sub, row) in enumerate(zip(subs, values)):
        literals = [model.dialect.lit(v, g["type"]) for g, v in zip(groups, row)]
        rows.append([index, *literals])
        rendered = model.engine.render("text/group_rows.sql", source=context["source"],
                                       groups=groups, values=literals)
        ownership.claim(sub, ownership.names(sub.name, "base", "text", "macros"))
        try:
            fit.run(sub, {**context, "source": rendered}, scoring_macros=False)
        except InvalidDataError as exc:
            shown = ", ".join(f"{g['name']}={v!r}" for g, v in zip(groups, row))
            raise InvalidDataError(f"in the group {shown}: {exc}") from None
        finally:
            ownership.done(sub)
    _write_groups(model, groups, rows)
    _group_macros(model)


def update_groups(model: ModelContext, fit: TermFit, context: dict[str, Any],
                  groups: list[dict[str, Any]]) -> None:
    """``partial_fit`` (``fit.sign`` 1) or ``forget`` (-1) of a per-group text model,
    inside the caller's transaction: each group of the batch updates its group's text
    model under that model's vocabulary (a group new to a ``partial_fit`` gets a text
    model fitted on its rows, a group left without documents by a ``forget`` loses its
    model: its rows are scored by the pooled model again), then the pooled model is
    updated with every row of the batch."""
    flow = pipeline_of(model)
    table = model.dialect.ident(_groups_table(model))
    known = {tuple(values): index for index, *values in
             model.fetch("text/model_tables.sql#groups", table=table, groups=groups)}
    batch = [tuple(row) for row in flow.fetch("text/group_values.sql", groups=groups,
                                               **context)]
    unseen = [row for row in batch if row not in known]
    if fit.sign < 0 and unseen:
        raise InvalidDataError(
            f"cannot forget documents of group(s) {unseen[:5]}: model {model.name!r} never "
            "learned any of that group"
        )
    first = max(known.values(), default=-1) + 1
    every = {**known, **{row: first + i for i, row in enumerate(unseen)}}

    def names(indexes: list[int]) -> list[str]:
        return [n for i in indexes
                for n in ownership.names(group_model_name(model.name, i), "base", "text",
                                         "macros")]

    own = ownership.names(model.name, "base", "text", "macros") + [_groups_table(model)]
    ownership.claim(model, own + names(sorted(every.values())))
    emptied = []
    # Without transactions, the model of a group the write empties is staged like the
    # others and switched to with them: it is dropped after that.
    dropped_after: list[str] = []

    def drop_emptied(switched: bool) -> None:
        if switched and dropped_after:
            ownership.release(model, dropped_after)

    target = _groups_target(model, drop_emptied)
    for row in batch:
        sub = model.renamed(group_model_name(model.name, every[row]))
        literals = [model.dialect.lit(v, g["type"]) for g, v in zip(groups, row)]
        rendered = model.engine.render("text/group_rows.sql", source=context["source"],
                                       groups=groups, values=literals)
        ownership.claim(sub, ownership.names(sub.name, "base", "text", "macros"))
        try:
            stored = None if row in unseen else stored_input(sub)
            step = replace(fit, stored=stored)
            if not step.run(sub, {**context, "source": rendered}, scoring_macros=False,
                            may_empty=True):
                emptied.append(row)
        except InvalidDataError as exc:
            shown = ", ".join(f"{g['name']}={v!r}" for g, v in zip(groups, row))
            raise InvalidDataError(f"in the group {shown}: {exc}") from None
        finally:
            ownership.done(sub)
    left = {row: index for row, index in every.items() if row not in emptied}
    if not left:
        raise InvalidDataError(
            f"forgetting these documents would leave model {model.name!r} without any group: "
            "fit it again without group_by, or drop() it"
        )
    dropped = names(sorted(every[row] for row in emptied))
    if model.engine.capabilities.transactions:
        ownership.release(model, dropped)
    else:
        dropped_after.extend(dropped)
    ownership.forgo(model, dropped)
    _write_groups(model, groups, target=target, rows=[
        [index, *(model.dialect.lit(v, g["type"]) for g, v in zip(groups, row))]
        for row, index in sorted(left.items(), key=lambda item: item[1])])
    fit.run(model, context, kind={"groups": [[g["name"], g["type"]] for g in groups]},
            scoring_macros=False)
    _group_macros(model)


def _group_macros(model: ModelContext) -> None:
    """A per-group text model's scoring macros, once its groups' models and the table of
    its groups are written (the pooled model's own write leaves them out: they read every
    group's tables), where the model has them (``sql_macros``): an engine that stages the
    write's tables writes them once the write has switched to every model's new version
    (they embed the parameters: Spark's functions)."""
    if pipeline_of(model).sql_macros:
        model.engine.after_write(lambda: macros.create_macros(model))


def group_rows(model: ModelContext) -> list[tuple[Any, ...]]:
    """A per-group text model's table of groups: (group index, then the group values as
    read), in index order."""
    groups = [{"name": name, "column": model.dialect.ident(name), "type": sql_type}
              for name, sql_type in model.spec.groups]
    return [tuple(row) for row in model.fetch(
        "text/model_tables.sql#groups", table=model.dialect.ident(_groups_table(model)),
        groups=groups)]


def import_groups(model: ModelContext, groups: list[dict[str, Any]],
                  rows: list[tuple[Any, ...]], fill: Callable[[ModelContext, int], None],
                  finish: Callable[[ModelContext, dict[str, Any]], None]) -> None:
    """The groups of a per-group text model an import writes, inside its transaction,
    once the pooled model's tables are filled: per row of ``rows`` (group index, then the
    group values), the group's text model, whose tables ``fill(sub, index)`` creates and
    fills; then the table of groups, the pooled model (``finish(model, kind)``) and the
    scoring macros. Each model is finished as a fit finishes it (``finish(sub, kind)``)."""
    ownership.claim(model, ownership.names(model.name, "base", "text", "macros")
                    + [_groups_table(model)] + [
        n for index, *_ in rows
        for n in ownership.names(group_model_name(model.name, index), "base", "text",
                                 "macros")])
    labels = []
    for index, *_ in rows:
        sub = model.renamed(group_model_name(model.name, index))
        ownership.claim(sub, ownership.names(sub.name, "base", "text", "macros"))
        try:
            fill(sub, index)
            finish(sub, {"input": "text"})
            labels.append((index, [label for _, label, _ in
                                   pipeline_of(sub).fetch("catalog/read_params.sql#classes")]))
        finally:
            ownership.done(sub)
    _write_groups(model, groups, [[index, *(model.dialect.lit(v, g["type"])
                                            for g, v in zip(groups, values))]
                                  for index, *values in rows])
    finish(model, {"input": "text", "groups": [[g["name"], g["type"]] for g in groups]})
    pooled = {label for _, label, _ in pipeline_of(model).fetch("catalog/read_params.sql#classes")}
    for index, found in labels:  # a group's rows are some of the pooled model's
        if not set(found) <= pooled:
            raise InvalidDataError(
                f"the model of group {index} has the classes {sorted(set(found) - pooled)}, "
                "which the pooled model lacks")
    _group_macros(model)


def read_group_models(model: ModelContext) -> list[dict[str, Any]]:
    """A per-group text model's groups: their values (SQL literals, and as read), their
    model's tables and, per class of the pooled model, the group model's class index and
    constant (None for a class the group never saw)."""
    groups = [{"name": name, "column": model.dialect.ident(name), "type": sql_type}
              for name, sql_type in model.spec.groups]
    rows = model.fetch("text/model_tables.sql#groups", table=model.dialect.ident(_groups_table(model)),
                       groups=groups)
    pooled = {label: index for index, label, _ in
              pipeline_of(model).fetch("catalog/read_params.sql#classes")}
    models = []
    for index, *values in rows:
        sub = model.renamed(group_model_name(model.name, index))
        flow = pipeline_of(sub)
        constants = dict(flow.fetch("catalog/read_params.sql#constants"))
        classes = flow.fetch("catalog/read_params.sql#classes")
        models.append({
            "index": index + 1,  # 0 is the pooled model
            "values": [model.dialect.lit(v, g["type"]) for g, v in zip(groups, values)],
            "raw": list(values),  # (for a statement in another dialect)
            "t": sub.tables,
            "class_map": [(i, pooled[label]) for i, label, _ in classes],
            "constants": {pooled[label]: constants[i] for i, label, _ in classes},
        })
    return models


def forget_text(model: ModelContext, source: Any, target: str, column: str | None, *,
                weight: str | None = None, group_by: str | list[str] | None = None) -> None:
    """Subtract documents the model learned (exact unlearning), in one transaction.

    The vocabulary, idf and analyzer stay those of the first fit, as for ``partial_fit``:
    each forgotten document takes back exactly the counts (or tf-idf weights) it added,
    terms outside the vocabulary are ignored. So ``fit(A + B)`` then ``forget(A)`` equals
    ``fit(B)`` whenever ``B`` alone gives the same vocabulary, and in general equals
    scikit-learn's naive Bayes fitted on ``B`` through the vectorizer fitted on ``A + B``.
    A class left without documents disappears. Forgetting more than the model learned (an
    unknown class, more documents or more of a term than it counted) raises
    :class:`~sqlnb.errors.InvalidDataError` and changes nothing.
    """
    fit_text(model, source, target, column, weight=weight, options={}, partial=True,
             sign=-1, group_by=group_by)


def _after_forget(model: ModelContext, class_type: str, may_empty: bool = False) -> bool:
    """After subtracting documents: refuse what went below zero, drop emptied classes.
    Whether any document is left: if not, refused unless ``may_empty`` (a group's model,
    which its per-group text model then drops)."""
    amount = model.dialect.ident(model.family.amount_column)
    # (a term's n mixes documents and occurrences, see term_stats.sql: only its amount and
    # the class totals say what was learned)
    negative = pipeline_of(model).fetch("update/forget_checks.sql", amount=amount, terms=True)
    if negative:
        cells = "; ".join(
            f"class {cls}" + (f", term {feature!r}" if feature is not None else "")
            + (f" would have {n} documents and weight {value:.6g}" if feature is None
               else f" would have a count of {value:.6g}")
            for cls, feature, n, value in negative
        )
        raise InvalidDataError(
            f"cannot forget more than model {model.name!r} learned: {cells}"
        )
    pipeline_of(model).run("update/forget_cleanup.sql", keep=None, class_type=class_type)
    if pipeline_of(model).fetch("fit/counts.sql#class_count")[0][0] == 0:
        if may_empty:
            return False
        raise InvalidDataError(
            f"forgetting these documents would leave model {model.name!r} without any; "
            "drop() the model instead"
        )
    return True


# ---------------------------------------------------------------------- long input
@dataclass
class LongColumns:
    """Column names of a long table: one row per (document, feature) with a value."""

    document: str = "document"
    feature: str = "feature"
    value: str = "value"


def fit_long(model: ModelContext, entries: Any, target: str, *, labels: Any, weight: str | None,
             columns: LongColumns, partial: bool) -> None:
    """Fit (or update) a term model on a long table of (document, feature, value)."""
    model.engine.refuse_open_transaction("fitting a long-input model")
    _check_family(model, "long input")
    alpha = _scalar_alpha(model)
    stored = _stored_for_partial(model) if partial else None
    if stored is not None:
        if stored[0] != "long":
            raise InvalidParameterError(f"model {model.name!r} was not fitted on a long table")
        if LongColumns(**stored[1]) != columns:
            raise InvalidParameterError(
                f"model {model.name!r} reads the columns {stored[1]}; got {asdict(columns)}"
            )
    entries_src = model.engine.source(entries)
    labels_src = entries_src if labels is None else model.engine.source(labels)
    try:
        for name in (columns.document, columns.feature, columns.value):
            _check_column(entries_src, name, "long-table")
        for name in (columns.document, target, weight):
            _check_column(labels_src, name, "labels")
        if weight is not None:
            check_weights(model.engine, labels_src.sql, model.dialect.ident(target), weight,
                          model.dialect.ident(weight))
        target_type = labels_src.columns[target]
        context = {
            "entries": entries_src.sql,
            "rows": labels_src.sql,
            "distinct_rows": labels is None,
            "row": model.dialect.ident(columns.document),
            "feature": model.dialect.ident(columns.feature),
            "value_column": model.dialect.ident(columns.value),
            "by_name": True,
            "target": model.dialect.ident(target),
            "weight": None if weight is None else model.dialect.ident(weight),
            "binarize": model.family.params.get("binarize"),
        }

        def work() -> None:
            if stored is None:
                pipeline_of(model).create(target_type, text=True)
                grouping.drop_groups(model)  # of an earlier per-group model
            else:
                pipeline_of(model).stage(fresh=False, terms=True)  # no transactions
            pipeline_of(model).run("text/insert_long_features.sql", alpha=alpha, **context)
            pipeline_of(model).run("fit/batch_sparse.sql", **context)
            if pipeline_of(model).fetch("fit/counts.sql#batch_rows")[0][0] == 0:
                raise EmptyInputError("there are no labelled documents to fit")
            duplicated = pipeline_of(model).fetch("text/duplicate_labels.sql", **context)
            if duplicated[0][0]:
                raise InvalidDataError(
                    f"{duplicated[0][0]} document(s) have more than one label row"
                )
            problems = pipeline_of(model).fetch("fit/batch_checks_sparse.sql",
                                    needs_non_negative=model.family.has_batch_checks)
            if problems:
                raise InvalidDataError(
                    "cannot fit: " + "; ".join(f"feature {f!r} {p}" for f, p in problems)
                )
            pipeline_of(model).run("text/merge_terms.sql")
            pipeline_of(model).finish([{"name": columns.feature, "type": "VARCHAR"}], target,
                              target_type, weight, scoring_macros=False, kind={"input": "long"})
            n_documents = pipeline_of(model).fetch("text/model_tables.sql#documents_fitted")[0][0]
            pipeline_of(model).run("text/write_analyzer.sql", input="long",
                       options_json=json.dumps(asdict(columns)), n_documents=n_documents)

        _in_transaction(model, work)
    finally:
        model.engine.release(entries_src)
        if labels is not None:
            model.engine.release(labels_src)


# ---------------------------------------------------------------------- merge
def merge_models(result: ModelContext, sources: list[ModelContext]) -> None:
    """Combine term models (text or long input) into ``result``, in one transaction.

    The models must read their input the same way (text: the same column and analyzer
    options; long: the same columns) and have the same family and hyperparameters. Their
    statistics add up. For text the vocabularies must allow an exact answer:

    - when the analyzer keeps every term it sees (no ``min_df``/``max_df`` pruning on the
      models' documents, no ``max_features``, no idf), the vocabularies are unioned (a
      term's document frequency and occurrences add up): the result equals ``fit`` on
      the union of the documents each model's vocabulary was built from;
    - otherwise the vocabularies (terms and idf) must be identical, as in models
      continued from one first fit with ``partial_fit``: the result keeps that vocabulary
      and equals the first model updated with the others' documents;
    - anything else is refused (:class:`~sqlnb.errors.InvalidParameterError`): pruning
      or idf over the union would need the documents themselves.

    ``result`` may be one of ``sources`` (its statistics count once), or a new or other
    model, which is replaced.
    """
    result.engine.refuse_open_transaction("merge")
    grouped = [bool(source.spec.groups) for source in sources]
    if any(grouped):
        _merge_checks(result, sources)  # the pooled models'
        groups = _same_groups(sources)
        try:
            with result.engine.transaction("merge"):
                merge_groups(result, sources, groups)
        finally:
            ownership.done(result)
        result.invalidate()
        return
    plan = _merge_checks(result, sources)
    try:
        with result.engine.transaction("merge"):
            ownership.claim(result, ownership.names(result.name, "base", "text", "macros"))
            grouping.drop_groups(result)  # of an earlier per-group model of that name
            _merge_within(result, sources, plan)
    finally:
        ownership.done(result)
    result.invalidate()


def _merge_checks(result: ModelContext, sources: list[ModelContext]) -> dict[str, Any]:
    """Whether term models can merge exactly (see :func:`merge_models`), and how: their
    kind, stored input, the vocabularies to union and the documents behind them."""
    first = sources[0]
    kinds = {source.spec.input for source in sources}
    if len(kinds) > 1 or not kinds <= {"text", "long"}:
        raise InvalidParameterError(
            "merge combines models of one kind: "
            + ", ".join(f"{s.name!r} reads {s.spec.input}" for s in sources)
            + "; a text model merges only with text models fitted the same way"
        )
    kind = kinds.pop()
    stored = [_read_stored(source) for source in sources]
    for source, (_, options, _) in zip(sources[1:], stored[1:]):
        _check_mergeable(first, source, stored[0][1], options)
    if sum(same_tables(source, result) for source in sources) > 1:
        raise InvalidParameterError(
            f"model {result.name!r} is listed more than once (names ignore case) and is the "
            "target: a model cannot be added to itself; merge into a new name instead"
        )
    vocabularies: list[dict[str, Any]] = []
    n_documents = stored[0][2]
    if kind == "text":
        analyzer = Analyzer.from_json(json.dumps(stored[0][1]))
        documents = [n for _, _, n in stored]
        reasons = []
        if any(analyzer.prunes_by_df(n) for n in [*documents, sum(documents)]):
            reasons.append("prunes terms by document frequency (min_df, max_df)")
        if analyzer.max_features is not None:
            reasons.append("keeps only the max_features most frequent terms")
        if analyzer.sql()["use_idf"]:
            reasons.append("weights terms by idf")
        if not reasons:
            vocabularies, n_documents = [s.tables for s in sources], sum(documents)
        else:
            for source in sources[1:]:
                differ = pipeline_of(first).fetch("text/same_vocabulary.sql", a=first.tables,
                                              b=source.tables)[0][0]
                if differ:
                    raise InvalidParameterError(
                        f"models {first.name!r} and {source.name!r} have different "
                        f"vocabularies, and their analyzer {' and '.join(reasons)} over "
                        "all the documents: the merge would need the documents themselves. "
                        "Fit one model on all of them, or fit one first and partial_fit "
                        "the others "
                        "(their vocabularies are then the same and they merge)"
                    )
            vocabularies = [first.tables]
    return {"kind": kind, "options": stored[0][1], "vocabularies": vocabularies,
            "n_documents": n_documents}


def _merge_within(result: ModelContext, sources: list[ModelContext], plan: dict[str, Any],
                  kind: dict[str, Any] | None = None, scoring_macros: bool = True) -> None:
    """Write the merge of ``sources`` into ``result`` inside the caller's transaction."""
    meta = sources[0].meta
    alpha = _scalar_alpha(result)
    flow = pipeline_of(result)
    input_kind, n_documents = plan["kind"], plan["n_documents"]
    flow.run("text/merge_models.sql", sources=[s.tables for s in sources],
             vocabularies=plan["vocabularies"])
    flow.create(meta["target_type"], text=True)
    if input_kind == "text":
        flow.run("text/merged_vocabulary.sql")
        flow.run("text/insert_vocabulary.sql", alpha=alpha)
        flow.run("text/model_tables.sql#drop_terms")
    else:
        flow.run("text/insert_long_features.sql", alpha=alpha, entries=flow.tables["batch"],
                 feature=result.dialect.ident("feature"))
    flow.run("text/merge_terms.sql")
    if input_kind == "long":
        n_documents = flow.fetch("text/model_tables.sql#documents_fitted")[0][0]
    flow.run("text/write_analyzer.sql", input=input_kind,
             options_json=json.dumps(plan["options"]), n_documents=n_documents)
    text_macros = scoring_macros and input_kind == "text"
    flow.finish(meta["features"], meta["target"], meta["target_type"], None,
                scoring_macros=text_macros and macros_in_finish(result),
                kind={"input": input_kind, **(kind or {})})
    if text_macros:
        macros_after_write(result)


def _same_groups(sources: list[ModelContext]) -> list[dict[str, Any]]:
    """The group columns of per-group text models that merge: the same in each."""
    first = sources[0].spec.groups
    for source in sources:
        if not source.spec.groups or [(n, t.upper()) for n, t in source.spec.groups] != [
                (n, t.upper()) for n, t in first]:
            raise InvalidParameterError(
                "a per-group text model merges only with per-group text models of the same "
                "group columns: " + ", ".join(
                    f"{s.name!r} has {[n for n, _ in s.spec.groups] or 'no groups'}"
                    for s in sources)
            )
    return [{"name": name, "column": sources[0].dialect.ident(name), "type": sql_type}
            for name, sql_type in first]


def merge_groups(result: ModelContext, sources: list[ModelContext],
                 groups: list[dict[str, Any]]) -> None:
    """Merge per-group text models, inside the caller's transaction: each group's model is
    the merge of the sources' models of that group (one source's: a copy), the pooled
    model the merge of the pooled ones. ``result`` keeps its groups' numbers when it is
    one of the sources; a new result numbers them in sorted order."""
    maps = [{tuple(values): index for index, *values in source.fetch(
        "text/model_tables.sql#groups", table=source.dialect.ident(_groups_table(source)),
        groups=groups)} for source in sources]
    own = next((m for s, m in zip(sources, maps) if same_tables(s, result)), None)
    every = dict(own or {})
    for row in sorted({row for m in maps for row in m} - set(every)):
        every[row] = max(every.values(), default=-1) + 1

    def names(indexes: list[int]) -> list[str]:
        return [n for i in indexes
                for n in ownership.names(group_model_name(result.name, i), "base", "text",
                                         "macros")]

    ownership.claim(result, ownership.names(result.name, "base", "text", "macros")
                    + [_groups_table(result)] + names(sorted(every.values())))
    if own is None:
        grouping.drop_groups(result)  # an earlier model of that name's
    for row, index in sorted(every.items(), key=lambda item: item[1]):
        target = result.renamed(group_model_name(result.name, index))
        members = [source.renamed(group_model_name(source.name, m[row]))
                   for source, m in zip(sources, maps) if row in m]
        ownership.claim(target, ownership.names(target.name, "base", "text", "macros"))
        try:
            _merge_within(target, members, _merge_checks(target, members),
                          scoring_macros=False)
        except InvalidParameterError as exc:
            shown = ", ".join(f"{g['name']}={v!r}" for g, v in zip(groups, row))
            raise InvalidParameterError(f"in the group {shown}: {exc}") from None
        finally:
            ownership.done(target)
    _write_groups(result, groups, [
        [index, *(result.dialect.lit(v, g["type"]) for g, v in zip(groups, row))]
        for row, index in sorted(every.items(), key=lambda item: item[1])])
    _merge_within(result, sources, _merge_checks(result, sources), scoring_macros=False,
                  kind={"groups": [[g["name"], g["type"]] for g in groups]})
    _group_macros(result)


def same_tables(a: ModelContext, b: ModelContext) -> bool:
    """Whether two model objects name the same tables (DuckDB names ignore case)."""
    return a.engine.connection is b.engine.connection and a.tables["class_stats"].lower() == b.tables["class_stats"].lower()


def _read_stored(model: ModelContext) -> tuple[str, dict[str, Any], int]:
    """A term model's (input kind, options, n_documents), read from its own tables (those
    of an attached database too)."""
    try:
        rows = pipeline_of(model).fetch("text/model_tables.sql#analyzer")
    except model.engine.missing_relation_errors:
        rows = []
    if not rows:
        raise IncompatibleModelError(
            f"model {model.name!r} is a {model.spec.input} model without its analyzer table: "
            "fit it again, or drop it"
        )
    kind, options, n_documents = rows[0]
    return kind, json.loads(options), n_documents


def _check_mergeable(a: ModelContext, b: ModelContext, options_a: dict[str, Any],
                     options_b: dict[str, Any]) -> None:
    """Term models merge only with the same family, hyperparameters, input options and
    kind of labels."""
    ma, mb = a.meta, b.meta
    problems = []
    if ma["family"] != mb["family"]:
        problems.append(f"family {ma['family']} vs {mb['family']}")
    elif ma["params"] != mb["params"]:
        problems.append(f"hyperparameters {ma['params']} vs {mb['params']}")
    if options_a != options_b:
        changed = sorted(k for k in set(options_a) | set(options_b)
                         if options_a.get(k) != options_b.get(k))
        problems.append("input options " + ", ".join(
            f"{k}={options_a.get(k)!r} vs {options_b.get(k)!r}" for k in changed))
    kinds = {a.dialect.kind(m["target_type"]) for m in (ma, mb)}
    if ma["target_type"].upper() != mb["target_type"].upper() and not kinds <= {"integer"}:
        problems.append(f"target type {ma['target_type']} vs {mb['target_type']}")
    if problems:
        raise InvalidParameterError(
            f"models {a.name!r} and {b.name!r} cannot be merged: " + "; ".join(problems)
        )


# ---------------------------------------------------------------------- scoring
def compile_classes(model: ModelContext, stored: tuple[str, dict[str, Any], int]
                    ) -> dict[str, Any]:
    """Class labels and constants only: a term model's coefficients stay in the database.
    ``stored``: how the model reads its input (:func:`stored_input`), kept with them
    (``input``: the kind and its options) for its scoring."""
    meta = model.meta
    classes = pipeline_of(model).fetch("catalog/read_params.sql#classes")
    constants = dict(pipeline_of(model).fetch("catalog/read_params.sql#constants"))
    compiled = [{
        "index": index,
        "label_value": label,
        "label": model.dialect.lit(label, meta["target_type"]),
        "constant": constants[index],
        "jll": model.dialect.ident(f"__sqlnb_jll_{index}"),
        "coef": model.dialect.ident(f"__sqlnb_coef_{index}"),
        "sum": model.dialect.ident(f"__sqlnb_sum_{index}"),
    } for index, label, _ in classes]
    kind, options, _ = stored
    result = {"classes": classes, "compiled": compiled, "fitted_at": meta["fitted_at"],
              "input": (kind, options)}
    if kind == "text":
        # what the scoring macros and to_sql need to tokenise as predict does
        analyzer = Analyzer.from_json(json.dumps(options))
        result["text"] = {"column": analyzer.column, "a": analyzer.sql(),
                          "binarize": model.family.params.get("binarize")}
        if model.spec.groups:  # scored per group (score_group_terms.sql)
            result["text_groups"] = read_group_models(model)
    return result


def score_terms(model: ModelContext, source: Any, output: str, prefix: str | None,
                prediction: str = "prediction") -> duckdb.DuckDBPyRelation:
    """Score a text source (or a long table) with a term model, as a lazy relation."""
    compiled = model.parameters()
    kind, options = compiled["input"]
    classes = []
    for c in compiled["compiled"]:
        out = None if prefix is None else model.dialect.ident(f"{prefix}{c['label_value']}")
        classes.append({**c, "output": out})
    outputs = {prediction} if prefix is None else {f"{prefix}{c['label_value']}"
                                                    for c in compiled["compiled"]}
    src = model.engine.source(source)
    context: dict[str, Any] = {"source": src.sql, "input": kind, "output": output,
                               "classes": classes, "prediction": model.dialect.ident(prediction),
                               "fitted_at": str(compiled["fitted_at"]),
                               "binarize": model.family.params.get("binarize")}
    try:
        check_output_clashes(src.columns if kind == "text" else [options["document"]],
                             outputs)
    except InvalidDataError:
        model.engine.release(src)
        raise
    if kind == "text":
        analyzer = Analyzer.from_json(json.dumps(options))
        _check_column(src, analyzer.column, "text")
        if compiled.get("text_groups"):
            groups = [name for name, _ in model.spec.groups]
            for name in groups:
                _check_column(src, name, "group")
            context.update(column=model.dialect.ident(analyzer.column), a=analyzer.sql(),
                           keep=[model.dialect.ident(c) for c in src.columns],
                           groups=compiled["text_groups"],
                           group_columns=[model.dialect.ident(g) for g in groups])
            return model.engine.lazy(src, model.engine.render(
                "text/score_group_terms.sql", **pipeline_of(model).context(**context)))
        context.update(column=model.dialect.ident(analyzer.column), a=analyzer.sql(),
                       chunks=analyzer.chunked and analyzer.linear(model.family.count_sums),
                       order=model.dialect.ident("__sqlnb_doc"),
                       keep=[model.dialect.ident(c) for c in src.columns])
    else:
        columns = LongColumns(**options)
        for name in (columns.document, columns.feature, columns.value):
            _check_column(src, name, "long-table")
        document = model.dialect.ident(columns.document)
        context.update(document=document, feature=model.dialect.ident(columns.feature),
                       value_column=model.dialect.ident(columns.value), order=document,
                       keep=[document], a=None, column=None, chunks=False)
    return model.engine.lazy(
        src, model.engine.render("text/score_terms.sql", **pipeline_of(model).context(**context)))


def top_terms(model: Any, n: int = 10) -> duckdb.DuckDBPyRelation:
    """The ``n`` terms with the largest coefficient per class (class, term, coef);
    ``model``: a text model or its context."""
    model = as_context(model)
    _check_family(model, "top_terms")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise InvalidParameterError(f"n must be a positive int, got {n!r}")
    _ = model.meta  # raises NotFittedError early
    return model.engine.relation(
        model.engine.render("text/top_terms.sql", **pipeline_of(model).context(n=int(n))))
