"""Models through Spark Connect: the core model tests of test_spark_models.py and
test_spark_kinds.py run again with a Connect session as ``spark``.

The Connect server runs inside the shared local session's JVM (the server ships with
pyspark 4 as ``spark-connect_*.jar``); the client needs the ``connect`` extra of pyspark
(grpcio…), and the tests are skipped without it. A Connect session analyses a statement
only when it runs, so a lazy result keeps its source's temporary view until it is
collected: ``test_a_connect_result_reads_its_source_until_it_is_collected``.
"""

from __future__ import annotations

import gc
import socket

import numpy as np
import pandas as pd
import pytest

import sqlnb
from sqlnb.engines import engine_for
from sqlnb.engines.spark import SparkEngine

pytest.importorskip("pyspark.sql")
pytest.importorskip("grpc", reason="Spark Connect needs pyspark's connect extra")

# the module's tests, run here with the Connect session (their fixtures come along)
from tests.test_spark_kinds import (
    frame,
    kinds_duck,
    test_partial_fit_forget_and_merge_on_spark_update_as_on_duckdb,
)
from tests.test_spark_models import (
    duck,
    rows,
    test_a_model_fitted_on_spark_has_duckdbs_statistics_and_scikit_learns_answers,
    test_mixed_models_fit_and_score_on_spark_as_on_duckdb,
)
from tests.test_spark_models import (
    test_partial_fit_forget_and_merge_on_spark_update_as_on_duckdb as test_updates_of_one_family,
)

__all__ = ["duck", "frame", "kinds_duck", "rows",
           "test_a_model_fitted_on_spark_has_duckdbs_statistics_and_scikit_learns_answers",
           "test_mixed_models_fit_and_score_on_spark_as_on_duckdb",
           "test_partial_fit_forget_and_merge_on_spark_update_as_on_duckdb",
           "test_updates_of_one_family"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def spark(spark):
    """A Spark Connect session, served by the shared local session's JVM."""
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    jvm = spark.sparkContext._jvm
    context = spark.sparkContext._jsc.sc()
    port = _free_port()
    # the server reads its port from the running context's configuration; the Scala
    # object's instance (MODULE$), not its class, whose gRPC methods py4j cannot list
    context.conf().set("spark.connect.grpc.binding.port", str(port))
    service = getattr(getattr(jvm, "org.apache.spark.sql.connect.service.SparkConnectService$"),
                      "MODULE$")
    service.start(context)
    session = ConnectSession.builder.remote(f"sc://localhost:{port}").create()
    # the catalog is the shared session's: the models of these tests in a database of their own
    session.sql("CREATE DATABASE IF NOT EXISTS sqlnb_connect")
    session.catalog.setCurrentDatabase("sqlnb_connect")
    yield session
    session.stop()
    empty = getattr(getattr(jvm, "scala.None$"), "MODULE$")
    service.stop(empty, empty)


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
