"""Property-based tests (Hypothesis) of import_model over hostile exports: any value in any
field of model.json, and any value in any statistics cell (the files made consistent with
the manifest again, so only the import's own checks stand in the way). Each import is
either refused with IncompatibleModelError, leaving the database exactly as it was, or
succeeds with a model whose probabilities are finite and sum to 1. Bounded by the profile
tests/conftest.py loads.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
import tempfile
from pathlib import Path

import duckdb
import pytest
from catalog_state import catalog
from hypothesis import given
from hypothesis import strategies as st

import sqlnb
from sqlnb import portable
from sqlnb.errors import IncompatibleModelError

SCORED = ("SELECT * FROM (VALUES (1.5::DOUBLE, 2::BIGINT, 1::BIGINT, 'w1 z2'), "
          "(40.0, 0, 0, 'w3'), (-3.0, 4, 7, '')) v(x, c, g, body)")

# Values a hostile manifest or statistics file may hold in any field.
HOSTILE_VALUES = st.one_of(
    st.sampled_from([None, True, False, 0, -1, 1, 2, 10**30, 0.5, -0.0, 1e308, "", "x",
                     "DOUBLE", "VARCHAR", "gaussian", "a\x00b", "'; DROP TABLE users; --",
                     [], [1, 2], {}, {"name": "x"}, float("nan"), float("inf"),
                     float("-inf")]),
    st.text(max_size=6),
    st.floats(allow_nan=True, allow_infinity=True),
)
# Values a statistics cell may hold (numbers, as the columns are numeric).
CELL_VALUES = st.sampled_from([float("nan"), float("inf"), float("-inf"), -1.0, -1e-300,
                               0.0, 0.5, 3.0, 1e6])



@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    """One export of each kind of model, copied afresh by every example."""
    base = tmp_path_factory.mktemp("exports")
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT (i % 3)::VARCHAR AS y, i * 1.5 + i % 3 AS x, "
                "(i * 7) % 5 AS c, i % 2 AS g, 'w' || (i % 4) || ' z' || (i % 3) AS body "
                "FROM range(30) r(i)")
    made = {}
    for kind, family, options in [
        ("gaussian", "gaussian", {"features": ["x", "c"]}),
        ("multinomial", "multinomial", {"features": ["c", "g"]}),
        ("bernoulli", "bernoulli", {"features": ["c", "g"]}),
        ("categorical", "categorical", {"features": ["c", "g"]}),
        ("grouped", "gaussian", {"features": ["x", "c"], "group_by": ["g"]}),
        ("text", "multinomial", {"text": "body"}),
        ("grouped text", "multinomial", {"text": "body", "group_by": "g"}),
        ("auto", "auto", {"features": ["x", "c"]}),
    ]:
        model = sqlnb.NaiveBayes(kind, con=con, family=family).fit("t", "y", **options)
        made[kind] = model.export(base / kind)
    return made


def fresh(exports, kind):
    folder = Path(tempfile.mkdtemp()) / "export"
    shutil.copytree(exports[kind], folder)
    return folder


def import_or_refuse(folder):
    """Import into a database holding a table of the user's; a refusal must leave it as it
    was, an import must score finitely."""
    con = duckdb.connect()
    con.execute("CREATE TABLE users AS SELECT range AS id FROM range(3)")
    before = catalog(con)
    try:
        model = sqlnb.import_model(con, folder)
    except IncompatibleModelError:
        assert catalog(con) == before
        return None
    finally:
        shutil.rmtree(folder.parent, ignore_errors=True)
    for row in model.predict_proba(con.sql(SCORED)).fetchall():
        probabilities = row[-len(model.classes_):]
        assert all(math.isfinite(p) for p in probabilities), row
        assert math.isclose(sum(probabilities), 1.0, rel_tol=1e-9), row
    return model


def paths(value, prefix=()):
    """Every path to a value inside a JSON document (dict keys and list indexes)."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*prefix, index))


@given(kind=st.sampled_from(["gaussian", "categorical", "grouped", "text", "auto",
                             "grouped text"]),
       choice=st.integers(min_value=0), value=HOSTILE_VALUES, delete=st.booleans())
def test_any_value_in_any_manifest_field_is_refused_or_imports_and_scores_finitely(
        exports, kind, choice, value, delete):
    folder = fresh(exports, kind)
    manifest = json.loads((folder / "model.json").read_text())
    every = [p for p in paths(manifest) if p]
    path = every[choice % len(every)]
    changed = copy.deepcopy(manifest)
    parent = changed
    for key in path[:-1]:
        parent = parent[key]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    # NaN and infinities as JSON writes them (NaN, Infinity): Python reads them back
    (folder / "model.json").write_text(json.dumps(changed))
    import_or_refuse(folder)


@given(kind=st.sampled_from(["gaussian", "multinomial", "bernoulli", "categorical",
                             "grouped", "text", "auto", "grouped text"]),
       choice=st.integers(min_value=0), row=st.integers(min_value=0), value=CELL_VALUES)
def test_any_value_in_any_statistics_cell_is_refused_or_imports_and_scores_finitely(
        exports, kind, choice, row, value):
    folder = fresh(exports, kind)
    manifest = json.loads((folder / "model.json").read_text())
    numeric = [(table, column["name"]) for table in manifest["tables"]
               for column in table["columns"]
               if column["type"] in ("BIGINT", "INTEGER", "DOUBLE")]
    table, column = numeric[choice % len(numeric)]
    file = folder / table["file"]
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_parquet('{file}')")
    position = row % max(table["rows"], 1)
    sql_type = next(c["type"] for c in table["columns"] if c["name"] == column)
    cell = "NULL" if sql_type != "DOUBLE" and not math.isfinite(value) else (
        f"CAST('{value!r}' AS DOUBLE)" if sql_type == "DOUBLE" else str(int(value)))
    con.execute(f'UPDATE t SET "{column}" = {cell} WHERE rowid = {position}')
    con.execute(f"COPY (SELECT * FROM t ORDER BY rowid) TO '{file}' (FORMAT parquet)")
    table["sha256"] = portable._sha256(file)
    (folder / "model.json").write_text(json.dumps(manifest))
    import_or_refuse(folder)


def test_a_features_alpha_other_than_the_fits_is_refused(exports):
    # alpha 0 where the fit wrote 1: an unseen category's terms would be -inf in every
    # class (NaN probabilities); the import refuses it and changes nothing
    folder = fresh(exports, "categorical")
    manifest = json.loads((folder / "model.json").read_text())
    table = next(t for t in manifest["tables"] if t["file"] == "features.parquet")
    file = folder / table["file"]
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_parquet('{file}')")
    con.execute("UPDATE t SET alpha = 0.0 WHERE rowid = 1")
    con.execute(f"COPY (SELECT * FROM t ORDER BY rowid) TO '{file}' (FORMAT parquet)")
    table["sha256"] = portable._sha256(file)
    (folder / "model.json").write_text(json.dumps(manifest))
    assert import_or_refuse(folder) is None
