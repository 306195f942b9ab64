"""The compiled-template cache: a new process reuses the templates compiled by an earlier
one, and what it renders is the same SQL as without the cache."""

from __future__ import annotations

from sqlnb.engines.dialects import DUCKDB
from sqlnb.templates import environment

CONTEXT = {"model": "it's", "t": {"meta": "\"m_meta\""}}


def fresh_environment():
    # what a new process builds (environment() itself is cached per process)
    return environment.__wrapped__(DUCKDB)


def rendered(env) -> str:
    return str(env.get_template("catalog/read_meta.sql").module.version(**CONTEXT))


def test_a_new_environment_reuses_the_compiled_templates(tmp_path, monkeypatch):
    monkeypatch.setenv("SQLNB_TEMPLATE_CACHE", "0")
    expected = rendered(fresh_environment())
    monkeypatch.setenv("SQLNB_TEMPLATE_CACHE", str(tmp_path))
    assert rendered(fresh_environment()) == expected
    written = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    assert written  # the compiled template was stored
    assert rendered(fresh_environment()) == expected
    # loaded, not compiled and written again
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == written


def test_a_damaged_cache_entry_is_compiled_afresh(tmp_path, monkeypatch):
    monkeypatch.setenv("SQLNB_TEMPLATE_CACHE", "0")
    expected = rendered(fresh_environment())
    monkeypatch.setenv("SQLNB_TEMPLATE_CACHE", str(tmp_path))
    rendered(fresh_environment())
    for entry in tmp_path.iterdir():
        entry.write_bytes(b"not bytecode")
    assert rendered(fresh_environment()) == expected


def test_the_cache_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("SQLNB_TEMPLATE_CACHE", "0")
    assert fresh_environment().bytecode_cache is None
