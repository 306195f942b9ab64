"""Searches through Spark Connect: the search tests of test_spark_search.py (every kind's
search scored as the same search on DuckDB, a failed search leaving no scratch table) run
again with the Connect session of tests/conftest.py as ``spark`` (skipped without
pyspark's ``connect`` extra)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark.sql")
pytest.importorskip("grpc", reason="Spark Connect needs pyspark's connect extra")

# the module's tests, run here with the Connect session (their fixtures come along)
from tests.test_spark_search import (
    duck,
    frame,
    test_a_failed_search_on_spark_leaves_no_scratch_table,
    test_a_search_on_spark_scores_as_the_same_search_on_duckdb,
)

__all__ = ["duck", "frame", "test_a_failed_search_on_spark_leaves_no_scratch_table",
           "test_a_search_on_spark_scores_as_the_same_search_on_duckdb"]


# Cases that run through Connect only with SQLNB_SPARK_CONNECT=all (tests/conftest.py): a
# search is many writes; the text search runs in every run
CONNECT_ALL_ONLY = {
    f"test_a_search_on_spark_scores_as_the_same_search_on_duckdb[{kind}]"
    for kind in ("gaussian", "bernoulli", "per-group", "auto", "per-group-auto")
}


@pytest.fixture(scope="module")
def spark(connect_spark):
    """This module's tests run with the Connect session."""
    return connect_spark
