"""``fit_sql`` for every kind of model: the script, run on another database holding the same
rows, builds a model that scores exactly as the one ``fit`` builds."""

from __future__ import annotations

import duckdb
import pytest

import sqlnb

ROWS = (
    "SELECT i AS id, i % 3 AS label, "
    "CAST(i % 3 AS DOUBLE) * 2.0 + CAST((i * 7) % 5 AS DOUBLE) / 4.0 AS x1, "
    "CAST((i * 3 + i % 3) % 5 AS INTEGER) AS c1, "
    "['red', 'green', 'blue'][1 + (i * 13 + i % 3) % 3] AS colour, "
    "(i * 7 + i % 3) % 4 = 0 AS flag, 'store' || (i % 2) AS store, "
    "concat_ws(' ', ['money', 'meeting', 'match'][1 + i % 3], "
    "['offer', 'noon', 'score'][1 + (i + i % 3) % 3]) AS body "
    "FROM range(60) r(i)"
)
KINDS = {
    "auto": ({"family": "auto"}, {"features": ["x1", "c1", "colour", "flag"]}),
    "per-group": ({"family": "gaussian"}, {"features": ["x1", "c1"], "group_by": "store"}),
    "text": ({"family": "multinomial"}, {"text": "body"}),
}


def database() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(f"CREATE TABLE rows AS {ROWS}")
    return con


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_fit_script_builds_the_model_fit_builds(kind):
    settings, options = KINDS[kind]
    fitted = database()
    model = sqlnb.NaiveBayes("m", con=fitted, **settings).fit("rows", "label", **options)
    expected = model.predict_proba("rows").order("id").fetchall()

    scripted = database()
    script = sqlnb.NaiveBayes("m", con=scripted, **settings).fit_sql("rows", "label", **options)
    assert scripted.execute("SELECT table_name FROM duckdb_tables()").fetchall() == [("rows",)]
    scripted.execute(script)
    got = sqlnb.load(scripted, "m").predict_proba("rows").order("id").fetchall()
    assert len(got) == len(expected) == 60
    for row, want in zip(got, expected):
        assert row == pytest.approx(want, abs=1e-12)
