"""No silent wrong answers: row order, consistent reads, literal values, types compared by
value, output-column clashes, sample weights and argument validation (issue 10, item 3)."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest

import sqlnb
from sqlnb import errors

# Enough rows, and threads, for DuckDB to scan in parallel and finish joins out of order.
MANY = 300_000


@pytest.fixture
def parallel():
    con = duckdb.connect()
    con.execute("SET threads = 4")
    con.execute(
        f"CREATE TABLE big AS SELECT i AS id, i % 7 AS store, (hash(i) % 1000) / 100.0 AS x, "
        f"CAST(hash(i * 3) % 5 AS INTEGER) AS k, 'w' || (i % 3) || ' w' || (hash(i) % 4) AS body, "
        f"CAST(hash(i + 1) % 2 AS INTEGER) AS y FROM range({MANY}) r(i)")
    yield con
    con.close()


def ids(relation):
    return relation.fetchnumpy()["id"]


@pytest.mark.parametrize("output", ["predict", "predict_proba"])
def test_per_group_scoring_keeps_the_source_row_order(parallel, output):
    model = sqlnb.NaiveBayes("stores", con=parallel)
    model.fit(parallel.sql("SELECT store, x, y FROM big"), "y", group_by="store")
    scored = getattr(model, output)("big")
    np.testing.assert_array_equal(ids(scored), np.arange(MANY))


def test_plain_and_mixed_scoring_keep_the_source_row_order(parallel):
    plain = sqlnb.NaiveBayes("plain", con=parallel).fit(
        parallel.sql("SELECT x, y FROM big"), "y")
    np.testing.assert_array_equal(ids(plain.predict_proba("big")), np.arange(MANY))
    mixed = sqlnb.NaiveBayes("mixed", con=parallel, family="auto", integers="categorical")
    mixed.fit(parallel.sql("SELECT x, k, y FROM big"), "y")
    np.testing.assert_array_equal(ids(mixed.predict("big")), np.arange(MANY))


def test_text_scoring_keeps_the_source_row_order(parallel):
    model = sqlnb.NaiveBayes("text", con=parallel, family="multinomial")
    model.fit(parallel.sql("SELECT body, y FROM big LIMIT 1000"), "y", text="body")
    np.testing.assert_array_equal(ids(model.predict("big")), np.arange(MANY))


# Every character str.splitlines() breaks at (and so would a Jinja `indent` filter).
LINE_BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028",
               "\u2029"]


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("unseen", ["smooth", "error"])
def test_macros_score_categories_and_names_with_line_breaks_as_predict_does(grouped, unseen):
    con = duckdb.connect()
    categories = [f"a{brk}b" for brk in LINE_BREAKS]
    column = "colour\nname\u2028x"
    con.execute(f"""CREATE TABLE t AS SELECT list_extract(?, 1 + i % {len(categories)}) AS "{column}",
                    i % 2 AS store, CAST(hash(i) % 2 AS INTEGER) AS y FROM range(400) r(i)""",
                [categories])
    model = sqlnb.NaiveBayes("lines", con=con, family="categorical", alpha=0.5, unseen=unseen)
    model.fit("t", "y", group_by="store" if grouped else None)
    expected = model.predict_proba("t").fetchall()
    # every category was seen at fit: the macros must find each one (no error, same numbers)
    via_macro = con.sql("SELECT lines_predict_proba(t) AS p FROM t").fetchall()
    assert [(r[0]["0"], r[0]["1"]) for r in via_macro] == pytest.approx(
        [(r[-2], r[-1]) for r in expected], abs=1e-12)
