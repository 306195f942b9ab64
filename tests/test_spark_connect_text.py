"""Text models through Spark Connect: the text tests of test_spark_text.py (fits of each
family and option, updates and merges, per-group text models) run again with the Connect
session of tests/conftest.py as ``spark`` (skipped without pyspark's ``connect`` extra)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark.sql")
pytest.importorskip("grpc", reason="Spark Connect needs pyspark's connect extra")

# the module's tests, run here with the Connect session (their fixtures come along)
from tests.test_spark_text import (
    duck,
    frames,
    test_a_text_model_on_spark_answers_as_on_duckdb_and_as_scikit_learn,
    test_per_group_text_models_on_spark_answer_as_on_duckdb,
    test_updates_and_merges_of_spark_text_models_equal_duckdbs,
)

__all__ = ["duck", "frames",
           "test_a_text_model_on_spark_answers_as_on_duckdb_and_as_scikit_learn",
           "test_per_group_text_models_on_spark_answer_as_on_duckdb",
           "test_updates_and_merges_of_spark_text_models_equal_duckdbs"]


# Cases that run through Connect only with SQLNB_SPARK_CONNECT=all (tests/conftest.py)
CONNECT_ALL_ONLY = {
    *(f"test_a_text_model_on_spark_answers_as_on_duckdb_and_as_scikit_learn[{case}]"
      for case in ("multinomial-min_df-max_df", "complement-ngram_range-stop_words",
                   "multinomial-tfidf-norm-sublinear_tf-lowercase-token_pattern")),
    "test_per_group_text_models_on_spark_answer_as_on_duckdb",
}


@pytest.fixture(scope="module")
def spark(connect_spark):
    """This module's tests run with the Connect session."""
    return connect_spark
