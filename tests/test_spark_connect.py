"""Models through Spark Connect: the model tests of test_spark_models.py,
test_spark_kinds.py and test_spark_functions.py (fits and updates of every family, mixed,
per-group and wide models, failed writes, the stored scoring functions) run again with a
Connect session as ``spark``; test_spark_connect_text.py and test_spark_connect_search.py
do the same for text models and searches.

The Connect server runs inside the shared local session's JVM (the server ships with
pyspark 4 as ``spark-connect_*.jar``); the client needs the ``connect`` extra of pyspark
(grpcio…), and the tests are skipped without it. A Connect session analyses a statement
only when it runs, so a lazy result keeps its source's temporary view until it is
collected: ``test_a_connect_result_reads_its_source_until_it_is_collected``.
"""

from __future__ import annotations

import gc

import numpy as np
import pandas as pd
import pytest

import sqlnb
from sqlnb.engines import engine_for
from sqlnb.engines.spark import SparkEngine

pytest.importorskip("pyspark.sql")
pytest.importorskip("grpc", reason="Spark Connect needs pyspark's connect extra")

# the module's tests, run here with the Connect session (their fixtures come along)
from tests.test_spark_functions import (
    test_per_group_functions_pick_the_rows_group_as_duckdbs_macros,
    test_scoring_functions_answer_as_the_facade_and_follow_partial_fit,
    test_text_functions_tokenise_as_duckdbs_macros,
)
from tests.test_spark_kinds import (
    frame,
    kinds_duck,
    test_a_per_group_model_fits_and_scores_on_spark_as_on_duckdb,
    test_a_wide_model_scores_on_spark_as_on_duckdb_and_scikit_learn,
    test_partial_fit_forget_and_merge_on_spark_update_as_on_duckdb,
)
from tests.test_spark_models import (
    duck,
    rows,
    test_a_model_fitted_on_spark_has_duckdbs_statistics_and_scikit_learns_answers,
    test_a_partial_fit_that_fails_midway_leaves_the_spark_model_as_it_was,
    test_a_refit_that_fails_leaves_the_spark_model_as_it_was,
    test_mixed_models_fit_and_score_on_spark_as_on_duckdb,
)
from tests.test_spark_models import (
    test_partial_fit_forget_and_merge_on_spark_update_as_on_duckdb as test_updates_of_one_family,
)

__all__ = ["duck", "frame", "kinds_duck", "rows",
           "test_a_model_fitted_on_spark_has_duckdbs_statistics_and_scikit_learns_answers",
           "test_a_partial_fit_that_fails_midway_leaves_the_spark_model_as_it_was",
           "test_a_per_group_model_fits_and_scores_on_spark_as_on_duckdb",
           "test_a_refit_that_fails_leaves_the_spark_model_as_it_was",
           "test_a_wide_model_scores_on_spark_as_on_duckdb_and_scikit_learn",
           "test_mixed_models_fit_and_score_on_spark_as_on_duckdb",
           "test_partial_fit_forget_and_merge_on_spark_update_as_on_duckdb",
           "test_per_group_functions_pick_the_rows_group_as_duckdbs_macros",
           "test_scoring_functions_answer_as_the_facade_and_follow_partial_fit",
           "test_text_functions_tokenise_as_duckdbs_macros",
           "test_updates_of_one_family"]


# Cases that run through Connect only with SQLNB_SPARK_CONNECT=all (tests/conftest.py): the
# wide model (minutes of Spark analysis) and the other families of a parametrized test
# one family of which runs in every run
CONNECT_ALL_ONLY = {
    "test_a_wide_model_scores_on_spark_as_on_duckdb_and_scikit_learn",
    *(f"test_a_per_group_model_fits_and_scores_on_spark_as_on_duckdb[{family}]"
      for family in ("multinomial", "bernoulli", "complement", "poisson", "categorical")),
    "test_per_group_functions_pick_the_rows_group_as_duckdbs_macros[auto]",
    *(f"test_text_functions_tokenise_as_duckdbs_macros[{case}]"
      for case in ("complement-bigrams", "bernoulli-grouped", "tfidf-grouped")),
}


@pytest.fixture(scope="module")
def spark(connect_spark):
    """This module's tests (and those it imports) run with the Connect session."""
    return connect_spark


def test_the_session_is_a_connect_session(spark):
    engine = engine_for(spark)
    assert isinstance(engine, SparkEngine) and engine.connect
    assert type(spark).__module__ == "pyspark.sql.connect.session"


def test_a_connect_result_reads_its_source_until_it_is_collected(spark):
    data = pd.DataFrame({"x": np.arange(20) % 5 * 1.0, "y": np.arange(20) % 2})
    model = sqlnb.NaiveBayes("sc_lazy", con=spark, family="gaussian").fit(data, "y")
    views = {t.name for t in spark.catalog.listTables() if t.isTemporary}
    # derived from the result, the selection still reads the source's view
    labels = model.predict(data).select("prediction").collect()
    gc.collect()
    assert [r[0] for r in labels] == list(model.predict(data).toPandas()["prediction"])
    result = model.predict_proba(data)
    held = {t.name for t in spark.catalog.listTables() if t.isTemporary} - views
    assert len(held) == 1
    del result
    gc.collect()
    assert not {t.name for t in spark.catalog.listTables() if t.isTemporary} - views
