"""The models in a database, and opening database files other DuckDB versions can read.

>>> import duckdb, sqlnb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE t AS SELECT i % 2 AS y, CAST(i AS DOUBLE) AS x "
...                 "FROM range(10) r(i)")
>>> _ = sqlnb.NaiveBayes("churn", con=con).fit("t", "y")
>>> [(m["model"], m["family"], m["n_rows"]) for m in sqlnb.list_models(con)]
[('churn', 'gaussian', 10)]
"""

from __future__ import annotations

import json
import os
from typing import Any

import duckdb

from .engines import engine_for

# The storage format DuckDB 1.5 reads. DuckDB 2.0 writes a newer one by default, which the
# DuckDB CLI of an older release (the `duckdb-cli` package lags behind) cannot open.
COMPATIBLE_STORAGE = "v1.5.0"


def connect(database: str | os.PathLike[str] = ":memory:", *,
            storage_version: str | None = COMPATIBLE_STORAGE,
            read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open (or create) a DuckDB database for sqlnb models.

    A file created here is written in the storage format of ``storage_version`` (DuckDB's
    ``storage_compatibility_version``; by default the one DuckDB 1.5 reads), so analysts
    with an older DuckDB CLI can open it and call the model's scoring macros. The format of
    an existing file never changes; ``storage_version=None`` writes DuckDB's newest format.

    >>> con = sqlnb.connect()            # doctest: +SKIP
    >>> con = sqlnb.connect("shop.duckdb")  # doctest: +SKIP
    """
    config = {}
    if storage_version is not None and _release(duckdb.__version__) > _release(storage_version):
        config["storage_compatibility_version"] = storage_version
    return duckdb.connect(os.fspath(database), read_only=read_only, config=config)


def _release(version: str) -> tuple[int, ...]:
    """``"v1.5.0"`` or ``"1.5.0"`` as (1, 5, 0); an older DuckDB writes its own format."""
    parts = []
    for part in version.lstrip("v").split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def list_models(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The sqlnb models in the current schema of ``con``, sorted by name.

    Each is a dict: ``model``, ``family``, ``target``, ``classes`` (labels), ``n_classes``,
    ``n_features``, ``n_rows`` (training rows), ``weight`` (their summed weight) and
    ``fitted_at``.
    """
    engine = engine_for(con)
    ident = engine.dialect.ident
    candidates = [row[0] for row in
                  engine.fetch(engine.render("catalog/list_models.sql#candidates"))]
    models = []
    for table in candidates:
        name = table[: -len("_meta")]
        models.append({"name": name, "meta": ident(table),
                       "class_stats": ident(f"{name}_class_stats")})
    if not models:
        return []
    present = {row[0] for row in engine.fetch(engine.render("catalog/list_models.sql#tables"))}
    models = [m for m in models if f"{m['name']}_class_stats" in present]
    if not models:
        return []
    keys, rows = engine.fetch_with_names(
        engine.render("catalog/list_models.sql#summaries", models=models))
    summaries = [dict(zip(keys, row)) for row in rows]
    # a model another model owns (a per-group text model's group models) is part of it
    owns = {s["model"]: {name.lower() for name in json.loads(s.pop("owns") or "[]")}
            for s in summaries}
    inner = {s["model"] for s in summaries
             if any(f"{s['model']}_meta".lower() in names
                    for other, names in owns.items() if other != s["model"])}
    for summary in summaries:
        summary["classes"] = json.loads(summary["classes"])
    return [s for s in summaries if s["model"] not in inner]
