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
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from . import grouping, mixed, ownership, parts, text
from .dialect import DUCKDB, SPARK
from .engine import engine_for, require_models
from .errors import (
    ExportExistsError,
    IncompatibleModelError,
    InvalidDataError,
    InvalidParameterError,
    ModelNotFoundError,
    NameConflictError,
    NotFittedError,
    SqlnbError,
)
from .templates import render
from .validation import check_label_type
from .version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from .model import NaiveBayes

FORMAT = "sqlnb-model"
FORMAT_VERSION = 1
MANIFEST = "model.json"

# The tables a model can own, by role (the relation is "<model>_<role>"); the metadata row
# goes into model.json instead of a file.
BASE_TABLES = ("class_stats", "features", "feature_stats")
GROUP_TABLES = ("group_columns", "group_class_stats", "group_feature_stats")
TEXT_TABLES = ("analyzer", "vocabulary")
PART_TABLES = tuple(f"{family}_stats" for family in mixed.PART_FAMILIES)
GROUP_PART_TABLES = tuple(f"group_{family}_stats" for family in mixed.PART_FAMILIES)
KNOWN_ROLES = BASE_TABLES + GROUP_TABLES + TEXT_TABLES + PART_TABLES + GROUP_PART_TABLES
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


# ---------------------------------------------------------------------- export
def export_model(model: NaiveBayes, path: str | os.PathLike, *,
                 overwrite: bool = False) -> Path:
    """Write ``model`` to the directory ``path`` (see :meth:`NaiveBayes.export`)."""
    if not isinstance(overwrite, bool):
        raise InvalidParameterError(f"overwrite must be True or False, got {overwrite!r}")
    target = _as_path(path)
    if getattr(model, "catalog", None) is not None:
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


def _duckdb_copy(model: NaiveBayes) -> NaiveBayes:
    """The model's tables (those it owns: its metadata and statistics) copied into a private
    in-memory DuckDB, as the same model there: how a model on another engine is exported
    (the files are written as a DuckDB model's are, so they are the same either way)."""
    local = duckdb.connect()
    roles = ["meta", *KNOWN_ROLES]
    names = [f"{model.name}_{role}" for role in roles]
    mine = ownership.owned(model)
    present = ownership.existing(model, names)
    for name in names:
        if name.lower() in present and name.lower() in mine:
            rows = model.engine.arrow(model.engine.render(
                "table_versions.sql", what="columns", table=model.dialect.ident(name)))
            local.register("__sqlnb_rows", rows)
            local.execute(render("table_versions.sql", what="copy", into=DUCKDB.ident(name),
                                 table=DUCKDB.ident("__sqlnb_rows")))
            local.unregister("__sqlnb_rows")
    return type(model)(model.name, con=local, family=model.family.name, sql_macros=False,
                       **model.family.params)


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


def _owned_tables(model: NaiveBayes) -> list[str]:
    """The roles of the tables the model owns (its meta row lists them), in a fixed order."""
    candidates = [f"{model.name}_{role}" for role in KNOWN_ROLES]
    mine = ownership.owned(model)
    present = ownership.existing(model, candidates)
    return [role for role, name in zip(KNOWN_ROLES, candidates)
            if present.get(name.lower()) == "TABLE" and name.lower() in mine]


def _write_files(model: NaiveBayes, directory: Path) -> dict[str, Any]:
    """One Parquet file per statistics table, all read from one snapshot; the manifest."""
    with model.engine.snapshot():
        model.invalidate()
        meta = dict(model.meta)  # NotFittedError when there is nothing to export
        tables = []
        for role in _owned_tables(model):
            name = f"{model.name}_{role}"
            columns = [{"name": column, "type": sql_type, "text": not _NATIVE.fullmatch(sql_type)}
                       for column, sql_type in model.pipeline.fetch("export_columns.sql",
                                                            table_name=name)]
            file = directory / f"{role}.parquet"
            rows = model.pipeline.fetch("export_table.sql", role=role, table=DUCKDB.ident(name),
                                columns=columns, path=str(file))[0][0]
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
        "format_version": FORMAT_VERSION,
        "sqlnb_version": __version__,
        "exported_at": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "meta": meta,
        "kind": kind,
        "tables": tables,
    }


def _kind(model: NaiveBayes, roles: list[str]) -> dict[str, Any]:
    """What kind of model the files make (informational; the roles present decide)."""
    stored = model.stored_input()
    groups = [[g["name"], g["type"]] for g in grouping.read_groups(model)]
    parts = sorted({f.get("family") for f in model.meta["features"]} - {None},
                   key=mixed.PART_FAMILIES.index) if model.family.composite else [
        model.family.name]
    return {"input": stored[0] if stored else "columns", "parts": parts, "groups": groups}


def _timestamp(value: Any) -> Any:
    return value.isoformat() if hasattr(value, "isoformat") else value


def _sha256(file: Path) -> str:
    digest = hashlib.sha256()
    with open(file, "rb") as f:
        for block in iter(lambda: f.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


# ---------------------------------------------------------------------- import
def import_into(make_model: Callable[..., NaiveBayes], con: duckdb.DuckDBPyConnection,
                path: str | os.PathLike, *, name: str | None = None, replace: bool = False,
                sql_macros: bool = True) -> NaiveBayes:
    """:func:`sqlnb.import_model`, the model object made by ``make_model(name, con=…,
    family=…, sql_macros=…, **hyperparameters)`` (the facade passes ``NaiveBayes``)."""
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
    _check_files(con if engine.dialect is DUCKDB else duckdb.connect(), directory, tables)
    model = _new_model(make_model, con, name or meta["model"], meta, sql_macros)
    roles = set(tables)
    grouped, terms = "group_columns" in roles, "analyzer" in roles
    _check_roles(model, roles, meta, grouped, terms)
    groups = _groups(con, directory / tables["group_columns"]["file"]) if grouped else []
    if terms:
        _check_analyzer(model, directory / tables["analyzer"]["file"])
    _refuse_taken(model, replace)
    kinds = (parts.kinds(model, grouped) if grouped or model.family.composite
             else ("base", "macros") + (("text",) if terms else ()))
    features, target_type = meta["features"], meta["target_type"]
    try:
        with model.engine.transaction("import_model"):
            ownership.claim(model, ownership.names(model.name, *kinds))
            ownership.release(model, ownership.every_name(model.name))  # a replaced model
            if grouped or model.family.composite:  # a model of parts: created, then finished
                features = [dict(f) for f in features]  # as parts.write does
                lay = parts.layout(model, features, {f["name"]: f.get("family", "")
                                                     for f in features}, groups)
                parts.create(model, lay, target_type)
            else:
                model.pipeline.create(model.dialect.type_name(target_type), text=terms)
            for role, table in tables.items():
                if role != "group_columns":  # create_groups.sql wrote its rows
                    _load_table(model, directory, table)
            if grouped or model.family.composite:
                try:
                    parts.finish(model, lay, features, meta["target"], target_type,
                                 meta["weight"])
                except InvalidDataError as exc:
                    raise InvalidDataError(f"cannot import: {exc}") from None
            else:
                kind = {"input": text.stored_kind(model) if terms else "columns"}
                model.pipeline.finish(features, meta["target"], target_type, meta["weight"],
                                  scoring_macros=kind["input"] != "long", kind=kind)
    finally:
        ownership.done(model)
    model.invalidate()
    return model


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
    except (OSError, ValueError) as exc:
        raise _incompatible(directory, f"{MANIFEST} is not readable JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise _incompatible(directory, f"{MANIFEST} does not describe a {FORMAT} export")
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _incompatible(directory, f"{MANIFEST} has no valid format_version")
    if version > FORMAT_VERSION:
        error = _incompatible(
            directory, f"it has format version {version}, and this sqlnb reads up to "
            f"{FORMAT_VERSION}: upgrade sqlnb (the export was written by sqlnb "
            f"{manifest.get('sqlnb_version')!r})")
        error.newer = True
        raise error
    meta, tables = manifest.get("meta"), manifest.get("tables")
    try:
        assert isinstance(meta, dict) and isinstance(tables, list)
        for key in ("model", "family", "target", "target_type"):
            assert isinstance(meta[key], str) and meta[key]
        assert meta.get("weight") is None or isinstance(meta["weight"], str)
        assert isinstance(meta["params"], dict) and isinstance(meta["features"], list)
        for f in meta["features"]:
            assert isinstance(f["name"], str) and f["name"] and _TYPE.fullmatch(f["type"])
            assert f.get("family") is None or f["family"] in mixed.PART_FAMILIES
        assert _TYPE.fullmatch(meta["target_type"])
        for t in tables:
            assert t["role"] in KNOWN_ROLES and t["file"] == f"{t['role']}.parquet"
            assert isinstance(t["rows"], int) and isinstance(t["sha256"], str)
            for c in t["columns"]:
                assert isinstance(c["name"], str) and c["name"] and _TYPE.fullmatch(c["type"])
                assert c["stored_as"] in ("native", "text")
        assert len({t["role"] for t in tables}) == len(tables)
    except (AssertionError, KeyError, TypeError) as exc:
        detail = f" ({exc!r})" if str(exc) else ""
        raise _incompatible(
            directory, f"{MANIFEST} is damaged or describes tables, types or features this "
            f"sqlnb does not know{detail}") from None
    try:
        check_label_type(meta["target"], meta["target_type"])
    except SqlnbError as exc:
        raise _incompatible(directory, str(exc)) from None
    return manifest


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
            described = con.execute(render("import_check.sql", what="columns",
                                           path=str(file))).fetchall()
            rows = con.execute(render("import_check.sql", what="rows",
                                      path=str(file))).fetchall()[0][0]
        except duckdb.Error as exc:
            raise _incompatible(directory, f"the file {table['file']!r} is not readable "
                                f"Parquet ({str(exc).splitlines()[0]})") from None
        expected = [(c["name"], c["type"] if c["stored_as"] == "native" else "VARCHAR")
                    for c in table["columns"]]
        found = [(r[0], r[1]) for r in described]
        if [n for n, _ in found] != [n for n, _ in expected] or any(
                not _same_type(a, b) for (_, a), (_, b) in zip(found, expected)):
            raise _incompatible(directory, f"the file {table['file']!r} has columns {found}, "
                                f"model.json says {expected}")
        if rows != table["rows"]:
            raise _incompatible(directory, f"the file {table['file']!r} has {rows} rows, "
                                f"model.json says {table['rows']}")


def _same_type(found: str, expected: str) -> bool:
    return found.replace(" ", "").upper() == expected.replace(" ", "").upper()


def _new_model(make_model: Callable[..., NaiveBayes], con: duckdb.DuckDBPyConnection,
               name: str, meta: dict[str, Any], sql_macros: bool) -> NaiveBayes:
    """The model object the import fills, its family made from the recorded parameters."""
    try:
        return make_model(name, con=con, family=meta["family"], sql_macros=sql_macros,
                          **meta["params"])
    except InvalidParameterError as exc:
        raise IncompatibleModelError(
            f"the exported model {meta['model']!r} has a family or hyperparameters this "
            f"sqlnb does not know ({exc}): upgrade sqlnb"
        ) from None


def _check_roles(model: NaiveBayes, roles: set[str], meta: dict[str, Any], grouped: bool,
                 terms: bool) -> None:
    """The files make one model this sqlnb knows: the tables its kind needs, no others."""
    if model.family.composite:
        if any(f.get("family") is None for f in meta["features"]):
            raise IncompatibleModelError(
                f"the exported mixed model {meta['model']!r} does not record each feature's "
                "family: export it again with this sqlnb"
            )
        needed = {"class_stats", "features"} | {f"{f['family']}_stats" for f in meta["features"]}
    else:
        needed = set(BASE_TABLES)
    if grouped:
        needed |= set(GROUP_TABLES)
    if terms:
        needed |= set(TEXT_TABLES)
    if grouped and model.family.composite:  # each part keyed by the groups too
        needed = (needed - {"group_feature_stats"}) | {
            f"group_{f['family']}_stats" for f in meta["features"]}
    if grouped and terms:
        needed = set()  # no such model: text models are not fitted per group
    if roles != needed:
        raise IncompatibleModelError(
            f"the exported model {meta['model']!r} has the tables {sorted(roles)}, which make "
            "no model this sqlnb knows" + (f" (it expects {sorted(needed)})" if needed else "")
        )


def _small_table(con: duckdb.DuckDBPyConnection, file: Path) -> list[dict[str, Any]]:
    cursor = con.execute(render("import_check.sql", what="table", path=str(file)))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _groups(con: duckdb.DuckDBPyConnection, file: Path) -> list[dict[str, Any]]:
    """The group columns of a per-group model, their types checked like every type."""
    groups = []
    for row in _small_table(con, file):
        if not isinstance(row.get("name"), str) or not _TYPE.fullmatch(str(row.get("type"))):
            raise IncompatibleModelError(
                f"the group columns in {file.name!r} name a column or type this sqlnb does "
                "not know"
            )
        groups.append({"name": row["name"], "column": DUCKDB.ident(row["name"]),
                       "type": row["type"]})
    return groups


def _check_analyzer(model: NaiveBayes, file: Path) -> None:
    """A text model's analyzer settings are validated as fit validates them."""
    from .text import Analyzer, check_re2

    rows = _small_table(model.con, file)
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


def _refuse_taken(model: NaiveBayes, replace: bool) -> None:
    """A model of that name is replaced only when asked; a newer one never."""
    model.refuse_newer()
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


def _load_table(model: NaiveBayes, directory: Path, table: dict[str, Any]) -> None:
    """Copy one file into the table the import created for its role: the same columns, or
    the export is not one this sqlnb can read."""
    name = f"{model.name}_{table['role']}"
    # the table the import writes (on Spark, the new version of it: see Pipeline.stage)
    target = model.pipeline.tables.get(table["role"]) or model.dialect.ident(name)
    expected = model.engine.column_list(target)
    if [c["name"] for c in table["columns"]] != expected:
        raise _incompatible(directory, f"the file {table['file']!r} has the columns "
                            f"{[c['name'] for c in table['columns']]}; this sqlnb's "
                            f"{table['role']} table has {expected}")
    columns = [{"name": c["name"], "cast": c["type"] if c["stored_as"] == "text" else None}
               for c in table["columns"]]
    try:
        model.pipeline.run("import_table.sql", role=table["role"], table=target,
                           columns=columns, path=str(directory / table["file"]))
    except (duckdb.Error, *model.engine.unreadable_errors) as exc:  # e.g. a key twice, a label its type cannot hold
        raise _incompatible(directory, f"the rows of {table['file']!r} do not make a valid "
                            f"{table['role']} table ({str(exc).splitlines()[0]})") from None
