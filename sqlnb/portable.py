"""Models that move: export a model to Parquet + JSON, import it into another database.

``model.export(path)`` writes a directory holding one Parquet file per statistics table
the model owns (class counts, features, per-feature statistics; per-group, text
vocabulary and analyzer, mixed parts as the model has them) and ``model.json``: the
format's name and version, the metadata row (family, hyperparameters, target and its
type, features) and, per file, its columns and their types, its row count and its SHA-256
checksum. Parameters are not exported: they are views over the statistics, derived again
on import. :func:`import_model` checks every file against ``model.json``, then recreates
the tables under the (possibly new) name and finishes the model as a fit finishes
(parameter views, checks, metadata, scoring macros), in one transaction.

Only Parquet and JSON, with relative file names and plain Parquet types, so any engine
that reads Parquet (Spark, a later sqlnb engine) reads the same files; see
``docs/exchange.md`` for the format.

>>> import duckdb, tempfile, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, i * 1.5 AS x FROM range(10) r(i)")
>>> model = sqlnb.NaiveBayes("demo", con=con).fit("t", "y")
>>> folder = model.export(tempfile.mkdtemp() + "/demo")
>>> other = duckdb.connect()
>>> copy = sqlnb.import_model(other, folder, name="demo_copy")
>>> row = "SELECT 3.0 AS x"
>>> copy.predict_proba(other.sql(row)).fetchall() == model.predict_proba(con.sql(row)).fetchall()
True
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb

from . import grouping, mixed, ownership, parts, text
from .context import ModelContext, refuse_newer
from .engines import engine_for
from .engines.base import Engine, require_models
from .engines.dialects import DUCKDB, SPARK, Dialect, same_type
from .errors import (
    ExportExistsError,
    IncompatibleModelError,
    InvalidDataError,
    InvalidParameterError,
    ModelNotFoundError,
    NameConflictError,
    NotFittedError,
    SqlnbError,
    first_few,
)
from .families import make_family
from .pipeline import pipeline_of
from .templates import render
from .validation import check_label_type
from .version import __version__

FORMAT = "sqlnb-model"
FORMAT_VERSION = 2  # the newest this sqlnb reads (and writes for per-group text models)
# An export that only version 1's roles describe says version 1, so older readers read it.
PLAIN_VERSION = 1
MANIFEST = "model.json"

# The tables a model can own, by role (the relation is "<model>_<role>"); the metadata row
# goes into model.json instead of a file.
BASE_TABLES = ("class_stats", "features", "feature_stats")
GROUP_TABLES = ("group_columns", "group_class_stats", "group_feature_stats")
TEXT_TABLES = ("analyzer", "vocabulary")
# A per-group text model: its table of groups (index, then the group values), and each
# of the tables its group models have, stacked in one file keyed by the group's index.
TEXT_GROUPS = "text_groups"
TEXT_GROUP_ROLES = BASE_TABLES + TEXT_TABLES
STACKED_TABLES = tuple(f"text_group_{role}" for role in TEXT_GROUP_ROLES)
PART_TABLES = tuple(f"{family}_stats" for family in mixed.PART_FAMILIES)
GROUP_PART_TABLES = tuple(f"group_{family}_stats" for family in mixed.PART_FAMILIES)
OWN_ROLES = (BASE_TABLES + GROUP_TABLES + TEXT_TABLES + PART_TABLES + GROUP_PART_TABLES
             + (TEXT_GROUPS,))
KNOWN_ROLES = OWN_ROLES + STACKED_TABLES
_TABLE_FILES = frozenset(f"{role}.parquet" for role in KNOWN_ROLES)

# DuckDB types written to Parquet as they are (each has a plain Parquet type that other
# engines read); any other type is written as its text and cast back on import.
_NATIVE = re.compile(
    r"BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|"
    r"DOUBLE|VARCHAR|DATE|TIMESTAMP|DECIMAL\(\d{1,2},\d{1,2}\)")
# The types model.json may name (it is data from elsewhere: a type reaches SQL only if it
# is one of these); ENUM values are single-quoted SQL strings with quotes doubled.
_QUOTED = r"'(?:[^'\x00]|'')*'"
_TYPE = re.compile(
    r"(?:BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|"
    r"UHUGEINT|FLOAT|DOUBLE|VARCHAR|DATE|TIME|TIMESTAMP|TIMESTAMP_S|TIMESTAMP_MS|TIMESTAMP_NS|"
    r"TIMESTAMP WITH TIME ZONE|TIME WITH TIME ZONE|UUID|INTERVAL|BLOB|BIT|DECIMAL\(\d{1,2}, ?\d{1,2}\)|"
    rf"ENUM\({_QUOTED}(?:, ?{_QUOTED})*\))")
_CHUNK = 1 << 20
# The keys a feature of model.json may have (what the metadata row records).
_FEATURE_KEYS = {"name", "type", "family", "origin"}


def _is_name(value: Any) -> bool:
    """A name from model.json: a non-empty string that SQL can hold (no NUL character)."""
    return isinstance(value, str) and bool(value) and "\x00" not in value


def _is_type(value: Any) -> bool:
    return isinstance(value, str) and _TYPE.fullmatch(value) is not None


# ---------------------------------------------------------------------- export
def export_model(model: ModelContext, path: str | os.PathLike, *,
                 overwrite: bool = False) -> Path:
    """Write ``model`` to the directory ``path`` (see :meth:`NaiveBayes.export`)."""
    if not isinstance(overwrite, bool):
        raise InvalidParameterError(f"overwrite must be True or False, got {overwrite!r}")
    target = _as_path(path)
    if model.catalog is not None:
        raise InvalidParameterError(
            f"model {model.name!r} lives in the attached database {model.catalog!r}: export "
            f"it from a connection where that database is the current one (USE {model.catalog})"
        )
    _ = model.meta  # NotFittedError before anything is created on disk
    replaced = _check_target(target, overwrite)
    if model.engine.dialect is not DUCKDB:
        return export_model(_duckdb_copy(model), target, overwrite=overwrite)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial",
                                    dir=target.parent))
    try:
        manifest = _write_files(model, staging)
        with open(staging / MANIFEST, "w", encoding="utf-8") as out:
            json.dump(manifest, out, indent=2, sort_keys=False, default=str)
            out.write("\n")
        _swap_in(staging, target, replaced)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _duckdb_copy(model: ModelContext) -> ModelContext:
    """The model's tables (those it owns: its metadata and statistics) copied into a private
    in-memory DuckDB, as the same model there: how a model on another engine is exported
    (the files are written as a DuckDB model's are, so they are the same either way)."""
    local = duckdb.connect()
    roles = ["meta", *OWN_ROLES]
    names = [f"{model.name}_{role}" for role in roles]
    mine = ownership.owned(model)
    # a per-group text model's group models (<name>_text_group_<i>_<role>)
    group_table = re.compile(re.escape(f"{model.name}_text_group_".lower()) + r"\d+_(?:"
                             + "|".join(("meta", *TEXT_GROUP_ROLES)) + ")")
    names += sorted(name for name in mine if group_table.fullmatch(name))
    present = ownership.existing(model, names)
    for name in names:
        if name.lower() in present and name.lower() in mine:
            rows = model.engine.arrow(model.engine.render(
                "catalog/versions.sql#columns", table=model.dialect.ident(name)))
            local.register("__sqlnb_rows", rows)
            local.execute(render("catalog/versions.sql#copy", into=DUCKDB.ident(name),
                                 table=DUCKDB.ident("__sqlnb_rows")))
            local.unregister("__sqlnb_rows")
    # the type names its features table and its group columns record: Spark's, as DuckDB's
    recorded = [f["type"] for f in model.meta["features"]] + [
        sql_type for _, sql_type in model.spec.groups]
    types = sorted({(t, SPARK.portable_type(t)) for t in recorded if SPARK.portable_type(t) != t})
    for role in ("features", "group_columns"):
        name = f"{model.name}_{role}"
        if types and name.lower() in present and name.lower() in mine:
            local.execute(render("exchange/portable_types.sql", table=DUCKDB.ident(name),
                                 types=types, model=model.name))
    return model.renamed(model.name, engine=engine_for(local), sql_macros=False,
                         family=make_family(model.family.name, **model.family.params))


def _as_path(path: Any) -> Path:
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)) or not str(path):
        raise InvalidParameterError(f"path must be a directory path (str or Path), got {path!r}")
    return Path(os.path.abspath(os.fspath(path)))


def _export_files(directory: Path) -> set[str] | None:
    """The names of the files an earlier export wrote in ``directory`` (its manifest and the
    files the manifest lists; none for an empty directory), or None when the directory is
    not an export: not a directory, or no manifest of this format."""
    if not directory.is_dir() or directory.is_symlink():
        return None
    if not any(directory.iterdir()):
        return set()
    try:
        with open(directory / MANIFEST, encoding="utf-8") as f:
            manifest = json.load(f)
        if manifest.get("format") != FORMAT:
            return None
        # the names an export writes, as listed: a manifest from elsewhere names no others
        listed = {table["file"] for table in manifest.get("tables", [])
                  if isinstance(table, dict) and table.get("file") in _TABLE_FILES}
    except (OSError, ValueError, AttributeError, TypeError):
        return None
    return listed | {MANIFEST}


def _foreign(directory: Path, ours: set[str]) -> list[str]:
    """What ``directory`` holds besides the regular files named ``ours`` (sorted)."""
    return sorted(entry.name + ("/" if entry.is_dir() else "") for entry in directory.iterdir()
                  if entry.name not in ours or entry.is_symlink() or not entry.is_file())


def _check_target(target: Path, overwrite: bool) -> set[str]:
    """The names of the files an overwrite replaces (none when ``target`` is new); an
    existing path that is not an earlier export, or that holds anything an export did not
    write, is refused and left alone."""
    if not (target.exists() or target.is_symlink()):
        return set()
    if not overwrite:
        raise ExportExistsError(
            f"{str(target)!r} already exists: pass overwrite=True to replace an earlier "
            "export, or choose another path"
        )
    ours = _export_files(target)
    if ours is None:
        raise ExportExistsError(
            f"{str(target)!r} exists and is not a sqlnb model export (no {MANIFEST} of "
            "this format): it is left alone; choose another path"
        )
    _refuse_foreign(target, ours)
    return ours


def _refuse_foreign(directory: Path, ours: set[str], target: Path | None = None) -> None:
    """Refuse (naming ``target``, by default ``directory``) a directory holding more than
    the files ``ours``."""
    foreign = _foreign(directory, ours)
    if foreign:
        shown = ", ".join(repr(name) for name in foreign[:5]) + (
            f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise ExportExistsError(
            f"{str(target or directory)!r} holds an earlier export and also {shown}, which "
            "the export did not write: overwrite replaces only an export's own files, so "
            "nothing was changed; move those out of the directory, or choose another path"
        )


def _swap_in(staging: Path, target: Path, ours: set[str]) -> None:
    """Put the finished directory in place: a rename, so readers see the old export or the
    new one, never a half-written one. A replaced export is moved aside first and, once the
    new one is in place, only the files it wrote (``ours``) are removed from it."""
    if not target.exists():
        os.rename(staging, target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
    aside = old / "export"
    os.rename(target, aside)
    try:
        _refuse_foreign(aside, ours, target)  # anything added since the check goes back
        os.rename(staging, target)
    except BaseException:
        os.rename(aside, target)
        os.rmdir(old)
        raise
    for entry in aside.iterdir():
        if entry.name in ours and entry.is_file() and not entry.is_symlink():
            os.remove(entry)
    with contextlib.suppress(OSError):  # kept (hidden beside the export) if not empty
        os.rmdir(aside)
        os.rmdir(old)


def _owned_tables(model: ModelContext) -> list[str]:
    """The roles of the tables the model owns (its meta row lists them), in a fixed order."""
    candidates = [f"{model.name}_{role}" for role in OWN_ROLES]
    mine = ownership.owned(model)
    present = ownership.existing(model, candidates)
    return [role for role, name in zip(OWN_ROLES, candidates)
            if present.get(name.lower()) == "TABLE" and name.lower() in mine]


def _write_files(model: ModelContext, directory: Path) -> dict[str, Any]:
    """One Parquet file per statistics table, all read from one snapshot; the manifest."""
    with model.engine.snapshot():
        model.invalidate()
        meta = dict(model.meta)  # NotFittedError when there is nothing to export
        tables = []
        owned = _owned_tables(model)
        # a per-group text model's group models: each table stacked, keyed by the group
        indexes = [row[0] for row in text.group_rows(model)] if TEXT_GROUPS in owned else []
        stacked = [(f"text_group_{role}", role) for role in TEXT_GROUP_ROLES] if indexes else []
        for role, name, parts in [(role, f"{model.name}_{role}", None) for role in owned] + [
                (role, f"{text.group_model_name(model.name, indexes[0])}_{of}",
                 [{"index": i, "table": DUCKDB.ident(f"{text.group_model_name(model.name, i)}_{of}")}
                  for i in indexes]) for role, of in stacked]:
            columns = [{"name": column, "type": sql_type, "text": not _NATIVE.fullmatch(sql_type)}
                       for column, sql_type in pipeline_of(model).fetch("exchange/export_columns.sql",
                                                            table_name=name)]
            if parts:
                columns = [{"name": "group_index", "type": "INTEGER", "text": False}, *columns]
            file = directory / f"{role}.parquet"
            rows = pipeline_of(model).fetch("exchange/export_table.sql", role=role, table=DUCKDB.ident(name),
                                columns=columns, path=str(file), parts=parts)[0][0]
            tables.append({
                "role": role,
                "file": file.name,
                "rows": int(rows),
                "sha256": _sha256(file),
                "columns": [{"name": c["name"], "type": c["type"],
                             "stored_as": "text" if c["text"] else "native"} for c in columns],
            })
        kind = _kind(model, [t["role"] for t in tables])
    meta["fitted_at"] = _timestamp(meta.get("fitted_at"))
    # a model fitted on Spark records Spark's type names: the files speak DuckDB's
    meta["target_type"] = SPARK.portable_type(meta["target_type"])
    meta["features"] = [{**f, "type": SPARK.portable_type(f["type"])} for f in meta["features"]]
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION if any(
            t["role"] in STACKED_TABLES for t in tables) else PLAIN_VERSION,
        "sqlnb_version": __version__,
        "exported_at": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "meta": meta,
        "kind": kind,
        "tables": tables,
    }


def _kind(model: ModelContext, roles: list[str]) -> dict[str, Any]:
    """What kind of model the files make (informational; the roles present decide)."""
    groups = [[g["name"], g["type"]] for g in grouping.read_groups(model)]
    names = [name or model.family.name
             for name, _, _ in model.family.parts_of(model.meta["features"])]
    return {"input": model.input_kind, "parts": names, "groups": groups}


def _timestamp(value: Any) -> Any:
    return value.isoformat() if hasattr(value, "isoformat") else value


def _sha256(file: Path) -> str:
    digest = hashlib.sha256()
    with open(file, "rb") as f:
        for block in iter(lambda: f.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


# ---------------------------------------------------------------------- import
def import_into(con: duckdb.DuckDBPyConnection,
                path: str | os.PathLike, *, name: str | None = None, replace: bool = False,
                sql_macros: bool = True) -> ModelContext:
    """:func:`sqlnb.import_model`: the imported model's context (the facade makes its
    model object from it)."""
    engine = engine_for(con)
    require_models(engine, "import_model")
    con = engine.connection
    for flag, value in (("replace", replace), ("sql_macros", sql_macros)):
        if not isinstance(value, bool):
            raise InvalidParameterError(f"{flag} must be True or False, got {value!r}")
    if name is not None and (not isinstance(name, str) or not name):
        raise InvalidParameterError(f"name must be a non-empty string, got {name!r}")
    directory = _as_path(path)
    manifest = _read_manifest(directory)
    # before any read of the files: a failed read would abort the caller's transaction
    engine.refuse_open_transaction("import_model")
    meta = manifest["meta"]
    tables = {t["role"]: t for t in manifest["tables"]}
    # the files are checked by DuckDB wherever the model goes (they are on this machine)
    reader = con if engine.dialect is DUCKDB else duckdb.connect()
    _check_files(reader, directory, tables)
    model = _new_model(engine, name or meta["model"], meta, sql_macros)
    roles = set(tables)
    grouped, terms = "group_columns" in roles, "analyzer" in roles
    _check_roles(model, roles, meta, grouped, terms)
    groups = (_groups(reader, directory / tables["group_columns"]["file"], meta, model.dialect)
              if grouped else [])
    # a text model's input ("text" or "long"), from its analyzer file
    stored = _check_analyzer(model, reader, directory / tables["analyzer"]["file"]) if terms \
        else "columns"
    # a per-group text model's groups: (their columns, their rows), checked
    text_groups = (_text_groups(reader, directory, tables, meta) if TEXT_GROUPS in roles
                   else None)
    _refuse_taken(model, replace)
    in_parts = model.writes_in_parts(grouped, stored=False)  # created, then finished
    kinds = parts.kinds(model, grouped, terms=terms and not in_parts)
    features, target_type = meta["features"], meta["target_type"]
    try:
        with model.engine.transaction("import_model"), _as_incompatible(directory):
            ownership.claim(model, ownership.names(model.name, *kinds))
            ownership.release(model, ownership.every_name(model.name))  # a replaced model
            grouping.drop_groups(model)  # (a replaced per-group text model's group models)
            if in_parts:
                features = [dict(f) for f in features]  # as parts.write does
                lay = parts.layout(model, features, {f["name"]: f.get("family", "")
                                                     for f in features}, groups)
                parts.create(model, lay, model.dialect.type_name(target_type))
            else:
                pipeline_of(model).create(model.dialect.type_name(target_type), text=terms)
            for role, table in tables.items():
                # (create_groups.sql wrote the group columns; the groups of a per-group
                # text model are written below)
                if role in OWN_ROLES and role not in ("group_columns", TEXT_GROUPS):
                    _load_table(model, directory, table)
            check_statistics(model, features, groups, terms)
            if text_groups is not None:
                _import_text_groups(model, directory, tables, meta, *text_groups)
            elif in_parts:
                try:
                    parts.finish(model, lay, features, meta["target"], target_type,
                                 meta["weight"])
                except InvalidDataError as exc:
                    raise InvalidDataError(f"cannot import: {exc}") from None
            else:
                pipeline_of(model).finish(features, meta["target"], target_type, meta["weight"],
                                          scoring_macros=stored == "columns" or (
                                              stored == "text" and text.macros_in_finish(model)),
                                          kind={"input": stored})
                if stored == "text":
                    text.macros_after_write(model)
    finally:
        ownership.done(model)
    model.invalidate()
    return model


@contextlib.contextmanager
def _as_incompatible(directory: Path) -> Iterator[None]:
    """The checks a fit runs on its statistics (classes, priors, parameters), run on an
    import's: their refusal means the export holds a model no fit makes."""
    try:
        yield
    except (InvalidDataError, InvalidParameterError) as exc:
        raise _incompatible(directory, str(exc)) from None


def _incompatible(directory: Path, problem: str) -> IncompatibleModelError:
    return IncompatibleModelError(
        f"the model export at {str(directory)!r} cannot be imported: {problem}"
    )


def _read_manifest(directory: Path) -> dict[str, Any]:
    """model.json, checked for shape, format and version (nothing is trusted unchecked)."""
    file = directory / MANIFEST
    if not file.is_file():
        raise ModelNotFoundError(
            f"there is no model export at {str(directory)!r} (no {MANIFEST}): give the "
            "directory model.export() wrote"
        )
    try:
        with open(file, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError, RecursionError) as exc:
        raise _incompatible(directory, f"{MANIFEST} is not readable JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise _incompatible(directory, f"{MANIFEST} does not describe a {FORMAT} export")
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _incompatible(directory, f"{MANIFEST} has no valid format_version "
                            f"(a whole number from 1 to {FORMAT_VERSION})")
    if version > FORMAT_VERSION:
        error = _incompatible(
            directory, f"it has format version {version}, and this sqlnb reads up to "
            f"{FORMAT_VERSION}: upgrade sqlnb (the export was written by sqlnb "
            f"{manifest.get('sqlnb_version')!r})")
        error.newer = True
        raise error
    meta, tables = manifest.get("meta"), manifest.get("tables")
    damaged = (f"{MANIFEST} is damaged or describes tables, types or features this sqlnb "
               "does not know")
    try:
        assert isinstance(meta, dict) and isinstance(tables, list)
        assert _is_name(meta["model"]), "model"
        for t in tables:
            assert t["role"] in KNOWN_ROLES and t["file"] == f"{t['role']}.parquet"
            assert isinstance(t["rows"], int) and not isinstance(t["rows"], bool)
            assert isinstance(t["sha256"], str)
            for c in t["columns"]:
                assert _is_name(c["name"]) and _is_type(c["type"]), "columns"
                assert c["stored_as"] in ("native", "text")
            assert len({c["name"].lower() for c in t["columns"]}) == len(t["columns"])
        assert len({t["role"] for t in tables}) == len(tables)
    except (AssertionError, KeyError, TypeError) as exc:
        detail = f" ({exc!r})" if str(exc) else ""
        raise _incompatible(directory, damaged + detail) from None
    try:
        check_meta(meta)
        for t in tables:
            for c in t["columns"]:
                if c["name"] == "class" and not same_type(c["type"], meta["target_type"]):
                    raise IncompatibleModelError(
                        f"the class column of {t['file']!r} has type {c['type']}, and the "
                        f"target type is {meta['target_type']}")
    except IncompatibleModelError as exc:
        raise _incompatible(directory, str(exc)) from None
    return manifest


def check_meta(meta: Any) -> None:
    """Refuse a model's metadata (from model.json or a pickle) that no fit writes: its
    family, target, types, weight column and features, checked as fit checks them (the
    hyperparameters are checked as the model is made). Raises
    :class:`IncompatibleModelError`."""
    try:
        assert isinstance(meta, dict)
        for key in ("family", "target", "target_type"):
            assert _is_name(meta[key]), key
        assert meta["weight"] is None or _is_name(meta["weight"]), "weight"
        assert isinstance(meta["params"], dict) and isinstance(meta["features"], list)
        assert meta["features"], "features"
        for f in meta["features"]:
            assert isinstance(f, dict) and set(f) <= _FEATURE_KEYS, "features"
            assert _is_name(f["name"]) and _is_type(f["type"]), "features"
            assert f.get("family") is None or f["family"] in mixed.PART_FAMILIES, "family"
            origin = f.get("origin", 0.0)
            assert isinstance(origin, (int, float)) and not isinstance(origin, bool) \
                and math.isfinite(origin), "origin"
        assert len({f["name"] for f in meta["features"]}) == len(meta["features"]), "features"
        assert _is_type(meta["target_type"]), "target_type"
    except (AssertionError, KeyError, TypeError) as exc:
        detail = f" ({exc!r})" if str(exc) else ""
        raise IncompatibleModelError(
            "the model's metadata is damaged or describes tables, types or features this "
            f"sqlnb does not know{detail}") from None
    try:
        check_label_type(meta["target"], meta["target_type"])
    except SqlnbError as exc:
        raise IncompatibleModelError(str(exc)) from None


def _check_files(con: duckdb.DuckDBPyConnection, directory: Path,
                 tables: dict[str, dict[str, Any]]) -> None:
    """Every file is there, unaltered (checksum), with its columns and row count."""
    for table in tables.values():
        file = directory / table["file"]
        if not file.is_file():
            raise _incompatible(directory, f"the file {table['file']!r} is missing")
        if _sha256(file) != table["sha256"]:
            raise _incompatible(directory, f"the file {table['file']!r} does not match its "
                                "checksum in model.json (altered or damaged)")
        try:
            described = con.execute(render("exchange/import_check.sql#columns", path=str(file))).fetchall()
            rows = con.execute(render("exchange/import_check.sql#rows", path=str(file))).fetchall()[0][0]
        except duckdb.Error as exc:
            raise _incompatible(directory, f"the file {table['file']!r} is not readable "
                                f"Parquet ({str(exc).splitlines()[0]})") from None
        expected = [(c["name"], c["type"] if c["stored_as"] == "native" else "VARCHAR")
                    for c in table["columns"]]
        found = [(r[0], r[1]) for r in described]
        if [n for n, _ in found] != [n for n, _ in expected] or any(
                not same_type(a, b) for (_, a), (_, b) in zip(found, expected)):
            raise _incompatible(directory, f"the file {table['file']!r} has columns {found}, "
                                f"model.json says {expected}")
        if rows != table["rows"]:
            raise _incompatible(directory, f"the file {table['file']!r} has {rows} rows, "
                                f"model.json says {table['rows']}")


def _new_model(engine: Engine, name: str, meta: dict[str, Any],
               sql_macros: bool) -> ModelContext:
    """The model the import fills, its family made from the recorded parameters."""
    try:
        family = make_family(meta["family"], **meta["params"])
        return ModelContext(engine, name, family, parts.READERS,
                            sql_macros=sql_macros)
    except (InvalidParameterError, InvalidDataError, TypeError, ValueError,
            OverflowError) as exc:
        raise IncompatibleModelError(
            f"the exported model {meta['model']!r} has a family or hyperparameters this "
            f"sqlnb does not know or refuses ({exc}): if a newer sqlnb exported it, upgrade"
        ) from None


def _text_groups(con: duckdb.DuckDBPyConnection, directory: Path,
                 tables: dict[str, dict[str, Any]], meta: dict[str, Any]
                 ) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
    """A per-group text model's group columns (checked as fit checks ``group_by``) and its
    groups (index, then values: whole distinct indexes, distinct non-NULL values), each
    with its rows in every stacked file (and one analyzer, the pooled model's settings)."""
    table = tables[TEXT_GROUPS]
    columns = table["columns"]
    first = columns[0] if columns else {}
    if (first.get("name"), first.get("type"), first.get("stored_as")) != (
            "group_index", "INTEGER", "native") or len(columns) < 2:
        raise _incompatible(directory, f"{table['file']!r} does not start with the column "
                            "group_index (INTEGER) and the group columns")
    for stacked in STACKED_TABLES:
        head = tables[stacked]["columns"][:1]
        if [(c["name"], c["type"], c["stored_as"]) for c in head] != [
                ("group_index", "INTEGER", "native")]:
            raise _incompatible(directory, f"{tables[stacked]['file']!r} does not start with "
                                "the column group_index (INTEGER)")
    known = {f["name"]: f["type"] for f in meta["features"]}
    known.update({meta["target"]: meta["target_type"], meta.get("weight"): "DOUBLE"})
    known.update({c["name"]: c["type"] for c in columns[1:]})
    try:
        groups = grouping.group_specs(known, [c["name"] for c in columns[1:]], meta["target"],
                                      meta["features"], meta.get("weight"), DUCKDB)
    except SqlnbError as exc:
        raise _incompatible(directory, f"the group columns of {table['file']!r} are not "
                            f"valid ({exc})") from None
    rows = [tuple(row[c["name"]] for c in columns)
            for row in _small_table(con, directory / table["file"])]
    indexes = [row[0] for row in rows]
    problem = None
    if not rows:
        problem = "has no group"
    elif any(not isinstance(i, int) or i < 0 for i in indexes) or len(set(indexes)) != len(rows):
        problem = "has group indexes that are not distinct whole numbers from 0"
    elif any(v is None for row in rows for v in row[1:]) or len({row[1:] for row in rows}) != len(rows):
        problem = "has NULL group values, or a group twice"
    if problem is None:
        for stacked in STACKED_TABLES:
            found = dict(con.execute(render(
                "exchange/import_check.sql#group_indexes",
                path=str(directory / tables[stacked]["file"]))).fetchall())
            if set(found) != set(indexes) or (
                    stacked == "text_group_analyzer" and set(found.values()) != {1}):
                problem = (f"does not list the groups {tables[stacked]['file']!r} has rows "
                           "for (each has rows in every group file, one analyzer row)")
                break
    if problem is None:
        pooled = _small_table(con, directory / tables["analyzer"]["file"])[0]
        for row in _small_table(con, directory / tables["text_group_analyzer"]["file"]):
            if (row.get("input"), row.get("options")) != (pooled["input"], pooled["options"]):
                problem = ("goes with group models whose text settings are not the pooled "
                           "model's (a fit gives every group the same)")
                break
    if problem is not None:
        raise _incompatible(directory, f"{table['file']!r} {problem}")
    return groups, rows


def _import_text_groups(model: ModelContext, directory: Path,
                        tables: dict[str, dict[str, Any]], meta: dict[str, Any],
                        groups: list[dict[str, Any]], rows: list[tuple[Any, ...]]) -> None:
    """A per-group text model's group models (each filled from its rows of the stacked
    files and checked as an imported text model is), the table of its groups and the
    pooled model finished, in the import's transaction (see :func:`sqlnb.text.import_groups`)."""
    features, target_type = meta["features"], meta["target_type"]

    def fill(sub: ModelContext, index: int) -> None:
        pipeline_of(sub).create(sub.dialect.type_name(target_type), text=True)
        for role in TEXT_GROUP_ROLES:
            _load_table(sub, directory, tables[f"text_group_{role}"], role=role,
                        group_index=index)
        check_statistics(sub, features, [], True)

    def finish(target: ModelContext, kind: dict[str, Any]) -> None:
        pipeline_of(target).finish(features, meta["target"], target_type, meta["weight"],
                                   scoring_macros=False, kind=kind)

    # (the group columns checked with DuckDB's spelling: quoted here in the engine's)
    groups = [{**g, "column": model.dialect.ident(g["name"])} for g in groups]
    text.import_groups(model, groups, rows, fill, finish)


def _check_roles(model: ModelContext, roles: set[str], meta: dict[str, Any], grouped: bool,
                 terms: bool) -> None:
    """The files make one model this sqlnb knows: the tables its kind needs, no others."""
    pooled = parts.statistics_parts(model.family, meta["features"])
    if sum(len(part["features"]) for part in pooled) != len(meta["features"]):
        raise IncompatibleModelError(
            f"the exported mixed model {meta['model']!r} does not record each feature's "
            "family: export it again with this sqlnb"
        )
    # the class table and the features, and a statistics table per part (each keyed by
    # the groups too in a per-group model)
    needed = {"class_stats", "features"} | {part["role"] for part in pooled}
    if grouped:
        needed |= {"group_columns", "group_class_stats"} | {
            part["role"] for part in parts.statistics_parts(model.family, meta["features"],
                                                            grouped=True)}
    if terms:
        needed |= set(TEXT_TABLES)
    if terms and TEXT_GROUPS in roles:  # a per-group text model: its groups' models too
        needed |= {TEXT_GROUPS, *STACKED_TABLES}
    if roles != needed:
        raise IncompatibleModelError(
            f"the exported model {meta['model']!r} has the tables {sorted(roles)}, which make "
            "no model this sqlnb knows" + (f" (it expects {sorted(needed)})" if needed else "")
        )


def _small_table(con: duckdb.DuckDBPyConnection, file: Path) -> list[dict[str, Any]]:
    cursor = con.execute(render("exchange/import_check.sql#table", path=str(file)))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _groups(con: duckdb.DuckDBPyConnection, file: Path, meta: dict[str, Any],
            dialect: Dialect) -> list[dict[str, Any]]:
    """The group columns of a per-group model, checked as fit checks ``group_by`` (and
    their types like every type), as the importing engine (``dialect``) quotes and
    describes them. A model fitted on Spark records Spark's type names: they are read as
    the DuckDB types they are."""
    rows = [{**row, "type": SPARK.portable_type(row["type"])}
            if isinstance(row.get("type"), str) else row for row in _small_table(con, file)]
    problem = None
    if not rows or any(not _is_name(row.get("name")) or not _is_type(row.get("type"))
                       or row.get("position") != i for i, row in enumerate(rows)):
        problem = "name a column or type this sqlnb does not know"
    elif len({row["name"].lower() for row in rows}) != len(rows):
        problem = "name a column twice"
    else:
        columns = {f["name"]: f["type"] for f in meta["features"]}
        columns.update({meta["target"]: meta["target_type"], meta.get("weight"): "DOUBLE"})
        columns.update({row["name"]: row["type"] for row in rows})
        try:
            groups = grouping.group_specs(columns, [row["name"] for row in rows],
                                          meta["target"], meta["features"], meta.get("weight"),
                                          DUCKDB)
            return [{**g, "column": dialect.ident(g["name"]),
                     "type": dialect.column_type(g["type"])} for g in groups]
        except SqlnbError as exc:
            problem = f"are not valid ({exc})"
        except ValueError as exc:  # a type the importing engine has no name for
            problem = f"cannot be held by {dialect.title} ({exc})"
    raise IncompatibleModelError(f"the group columns in {file.name!r} {problem}")


def _check_analyzer(model: ModelContext, reader: duckdb.DuckDBPyConnection,
                    file: Path) -> str:
    """A text model's analyzer settings are validated as fit validates them (the file read
    by DuckDB, ``reader``, wherever the model goes); returns its input, ``text`` or
    ``long``."""
    from .text import Analyzer, check_re2

    rows = _small_table(reader, file)
    try:
        assert len(rows) == 1 and rows[0]["input"] in ("text", "long")
        options = json.loads(rows[0]["options"])
        if rows[0]["input"] == "text":
            analyzer = Analyzer.from_json(json.dumps(options))
            analyzer.validate()
            check_re2(model, analyzer.token_pattern)
        else:
            assert set(options) == {"document", "feature", "value"}
            assert all(isinstance(v, str) for v in options.values())
    except (AssertionError, KeyError, TypeError, ValueError, SqlnbError) as exc:
        raise IncompatibleModelError(
            f"the text model's settings in {file.name!r} are not valid for this sqlnb ({exc})"
        ) from None
    return str(rows[0]["input"])


def _refuse_taken(model: ModelContext, replace: bool) -> None:
    """A model of that name is replaced only when asked; a newer one never."""
    refuse_newer(model)
    try:
        _ = model.meta
    except NotFittedError:
        return
    except IncompatibleModelError:
        pass  # an incomplete or corrupt model of that name: replaceable as by a fit
    finally:
        model.invalidate()
    if not replace:
        raise NameConflictError(
            f"a model named {model.name!r} already exists in this database: pass "
            "replace=True to replace it, or name='...' to import under another name"
        )


def _load_table(model: ModelContext, directory: Path, table: dict[str, Any],
                role: str | None = None, group_index: int | None = None) -> None:
    """Copy one file into the table the import created for its role: the same columns, or
    the export is not one this sqlnb can read. ``role`` and ``group_index``: the rows of
    that group of a stacked file (a per-group text model's) into its group model's table
    of that role."""
    role = role or table["role"]
    name = f"{model.name}_{role}"
    listed = table["columns"][1:] if group_index is not None else table["columns"]
    # the table the import writes (on Spark, the new version of it: see Pipeline.stage)
    target = pipeline_of(model).tables.get(role) or model.dialect.ident(name)
    expected = model.engine.column_list(target)
    if [c["name"] for c in listed] != expected:
        raise _incompatible(directory, f"the file {table['file']!r} has the columns "
                            f"{[c['name'] for c in listed]}; this sqlnb's "
                            f"{role} table has {expected}")
    columns = [{"name": c["name"], "cast": c["type"] if c["stored_as"] == "text" else None}
               for c in listed]
    try:
        pipeline_of(model).run("exchange/import_table.sql", role=role, table=target,
                               columns=columns, path=str(directory / table["file"]),
                               group_index=group_index)
    except (duckdb.Error, *model.engine.unreadable_errors) as exc:  # e.g. a key twice, a label its type cannot hold
        raise _incompatible(directory, f"the rows of {table['file']!r} do not make a valid "
                            f"{table['role']} table ({str(exc).splitlines()[0]})") from None


# ---------------------------------------------------------------------- statistics checks
# What each statistics column holds, as a fit leaves it: (rule, nullable). Rules: finite,
# non_negative (finite and >= 0), positive (finite and > 0); a column not named here is
# a key or a label.
_COLUMN_RULES = {
    "n": ("non_negative", False),
    "weight": ("non_negative", False),
    "count": ("non_negative", False),
    "mean": ("finite", False),
    "m2": ("non_negative", False),
    "n_mean": ("finite", False),
    "n_m2": ("non_negative", False),
}
_STATS_COLUMNS = {"moments": ("n", "weight", "mean", "m2", "n_mean", "n_m2"),
                  "counts": ("n", "count", "weight"), "categories": ("n", "count")}


def check_statistics(model: ModelContext, features: list[dict[str, Any]],
                     groups: list[dict[str, Any]] | None = None, terms: bool = False) -> None:
    """Refuse statistics no fit leaves behind (an import's or a restore's, loaded into the
    model's tables in the caller's transaction): NaN, infinite or negative counts, weights
    and moments; rows for unknown classes or features, or a class or group without its
    rows; a features table that disagrees with ``features`` (the metadata's list) or with
    the hyperparameters; integer category codes outside ``max_categories``. Raises
    :class:`IncompatibleModelError` naming the first few problems."""
    problems = _feature_problems(model, features, terms)
    checks = _statistics_checks(model, features, groups or [], terms)
    for role, problem, count in pipeline_of(model).fetch("exchange/statistics_checks.sql", checks=checks):
        if count:
            problems.append(f"{role}: {problem}")
    if problems:
        raise IncompatibleModelError(
            "the model's statistics are not ones a fit leaves behind (altered or damaged): "
            + "; ".join(problems[:4]) + (f" and {len(problems) - 4} more" if len(problems) > 4
                                         else "")
        )


def _expected_options(model: ModelContext, features: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per feature, the alpha, coding and min_categories a fit with the model's
    hyperparameters writes (a mixed model's per its feature's family)."""
    expected = {}
    family: Any  # (a family with parameters per category codes its columns)
    for _, family, members in model.family.parts_of(features):
        for f, options in zip(members, family.feature_options(len(members))):
            coding = (family.coding(f["name"], f["type"], model.dialect)
                      if family.per_category else None)
            expected[f["name"]] = {**options, "coding": coding}
    return [expected[f["name"]] for f in features]


def _feature_problems(model: ModelContext, features: list[dict[str, Any]],
                      terms: bool) -> list[str]:
    """The features table against the metadata's features and the hyperparameters (a term
    model's features are its terms: the SQL checks cover them)."""
    if terms:
        return []
    rows = pipeline_of(model).fetch("catalog/read_meta.sql#features", source=pipeline_of(model).tables)
    names = [f["name"] for f in features]
    if [r[0] for r in rows] != names:
        return [(f"features: the features table lists {first_few([r[0] for r in rows])}, "
                f"the metadata {first_few(names)}")]
    problems = []
    for (name, sql_type, alpha, coding, minimum), f, expected in zip(
            rows, features, _expected_options(model, features)):
        if not same_type(sql_type, f["type"]):
            problems.append(f"feature {name!r} has type {sql_type} in the features table, "
                            f"{f['type']} in the metadata")
        if (alpha is None) != (expected.get("alpha") is None) or (
                alpha is not None and not (math.isfinite(alpha) and alpha >= 0
                                           and math.isclose(alpha, expected["alpha"],
                                                            rel_tol=1e-12, abs_tol=0))):
            problems.append(f"feature {name!r} has alpha {alpha!r}, which no fit of these "
                            "hyperparameters writes")
        if coding != expected.get("coding") or minimum != expected.get("min_categories"):
            problems.append(f"feature {name!r} has coding {coding!r} and min_categories "
                            f"{minimum!r}, which no fit of these hyperparameters writes")
    return problems


def _statistics_checks(model: ModelContext, features: list[dict[str, Any]],
                       groups: list[dict[str, Any]], terms: bool) -> list[dict[str, Any]]:
    """The checks ``exchange/statistics_checks.sql`` runs, per statistics table the model has."""
    t = pipeline_of(model).tables  # the tables the write fills (a staged version on Spark)
    checks: list[dict[str, Any]] = []

    def values(table: str, role: str, columns: tuple[str, ...],
               nullable: tuple[str, ...] = ()) -> None:
        for column in columns:
            rule, can_be_null = _COLUMN_RULES[column]
            checks.append({"kind": "values", "table": table, "role": role,
                           "column": model.dialect.ident(column), "rule": rule,
                           "nullable": can_be_null or column in nullable, "limit": None,
                           "problem": f"{column} has NULL, NaN, infinite or negative values"
                           if rule != "finite" else f"{column} has NULL, NaN or infinite values"})

    def statistics(family: Any, stats: str, classes: str, role: str, keys: list[str],
                   names: list[str] | None) -> None:
        shape = family.statistics_shape
        values(stats, role, _STATS_COLUMNS[shape],
               nullable=("weight",) if shape == "counts" else ())
        checks.append({"kind": "grid", "role": role, "stats": stats, "classes": classes,
                       "features": t["features"], "group_keys": keys, "names": names,
                       "complete": shape != "categories",
                       "problem": "has rows of unknown classes, groups or features, or lacks "
                       "the rows of some" if shape != "categories" else
                       "has rows of unknown classes, groups or features"})
        if family.counts_rows:
            checks.append({"kind": "bounded", "role": role, "stats": stats,
                           "classes": classes, "group_keys": keys,
                           "problem": "counts more rows than the class weighs"})
        if family.per_category:
            checks.append({"kind": "codes", "role": role, "stats": stats,
                           "features": t["features"],
                           "limit": family.params["max_categories"],
                           "problem": "has integer category codes that are not whole numbers "
                           f"in [0, max_categories={family.params['max_categories']})"})

    def classes(table: str, role: str) -> None:
        values(table, role, ("n", "weight"))
        checks.append({"kind": "weighed", "role": role, "table": table,
                       "problem": "no class weighs more than 0"})

    classes(t["class_stats"], "class_stats")
    checks.append({"kind": "values", "table": t["features"], "role": "features",
                   "column": model.dialect.ident("alpha"), "rule": "non_negative",
                   "nullable": not terms, "limit": None,
                   "problem": "alpha has NULL, NaN, infinite or negative values"})
    for part in parts.statistics_parts(model.family, features):
        # (the model's own part: the table the write fills; another part's: its own)
        stats = (t["feature_stats"] if part["names"] is None
                 else model.engine.table(f"{model.name}_{part['role']}"))
        statistics(part["sub"], stats, t["class_stats"], part["role"], [], part["names"])
    if groups:
        grouped = grouping.group_tables(model, groups)
        keys = [g["column"] for g in groups]
        classes(grouped["class_stats"], "group_class_stats")
        for part in parts.statistics_parts(model.family, features, grouped=True):
            statistics(part["sub"], model.engine.table(f"{model.name}_{part['role']}"),
                       grouped["class_stats"], part["role"], keys, part["names"])
    if terms:
        checks.append({"kind": "values", "table": t["vocabulary"], "role": "vocabulary",
                       "column": model.dialect.ident("count"), "rule": "non_negative",
                       "nullable": False, "limit": None,
                       "problem": "count has NULL, NaN, infinite or negative values"})
        checks.append({"kind": "values", "table": t["vocabulary"], "role": "vocabulary",
                       "column": model.dialect.ident("idf"), "rule": "positive",
                       "nullable": False, "limit": None,
                       "problem": "idf has NULL, NaN, infinite or non-positive values"})
        checks.append({"kind": "values", "table": t["analyzer"], "role": "analyzer",
                       "column": model.dialect.ident("n_documents"), "rule": "non_negative",
                       "nullable": False, "limit": None,
                       "problem": "n_documents is negative"})
    return checks
