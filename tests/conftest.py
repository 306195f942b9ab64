"""Shared fixtures: scikit-learn's bundled datasets, prepared per family."""

from __future__ import annotations

import os
import socket

import duckdb
import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

# The property-based (Hypothesis) tests run in the normal test command on a bounded budget:
# a fixed number of examples each, no per-example deadline (the machine may be shared and
# slow) and no example database written into the checkout. HYPOTHESIS_PROFILE=thorough
# explores more for a longer, local run.
settings.register_profile("ci", max_examples=10, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=300, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

DATASETS = {
    "iris": load_iris,
    "wine": load_wine,
    "breast_cancer": load_breast_cancer,
    "digits": load_digits,
}


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    return DATASETS[name](return_X_y=True)


def as_counts(X: np.ndarray, levels: int = 5) -> np.ndarray:
    """Discretise each column into integer levels 0..levels-1 (counts / category codes)."""
    span = X.max(axis=0) - X.min(axis=0)
    span[span == 0] = 1
    return np.floor((X - X.min(axis=0)) / span * (levels - 1e-9)).astype(np.int64)


def flat(rows) -> list:
    """Rows of a result as one flat list, for ``pytest.approx`` (which takes no nesting)."""
    return [value for row in rows for value in row]


@pytest.fixture
def con():
    connection = duckdb.connect()
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def classic_spark(tmp_path_factory):
    """One Spark session in local mode for every Spark test of the run (starting one takes
    10-20 s); skipped where pyspark is not installed (the ``spark`` extra)."""
    builder = pytest.importorskip("pyspark.sql").SparkSession.builder
    session = (
        builder.master("local[1]")
        .appName("sqlnb-tests")
        .config("spark.ui.enabled", "false")
        # one JVM runs every Spark test (wide models, a Connect server): more than the
        # default 1 GB of heap
        .config("spark.driver.memory", "3g")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("spark-warehouse")))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def spark(classic_spark):
    """The Spark session the Spark tests run with: the classic local one. The Connect test
    modules set it to ``connect_spark`` to run the same tests through Spark Connect."""
    return classic_spark


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def connect_spark(classic_spark):
    """A Spark Connect session, served by the classic session's JVM (the server ships with
    pyspark 4 as ``spark-connect_*.jar``); skipped without pyspark's ``connect`` extra."""
    pytest.importorskip("grpc", reason="Spark Connect needs pyspark's connect extra")
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    jvm = classic_spark.sparkContext._jvm
    context = classic_spark.sparkContext._jsc.sc()
    port = _free_port()
    # the server reads its port from the running context's configuration; the Scala
    # object's instance (MODULE$), not its class, whose gRPC methods py4j cannot list
    context.conf().set("spark.connect.grpc.binding.port", str(port))
    service = getattr(getattr(jvm, "org.apache.spark.sql.connect.service.SparkConnectService$"),
                      "MODULE$")
    service.start(context)
    session = ConnectSession.builder.remote(f"sc://localhost:{port}").create()
    # the catalog is the classic session's: the Connect tests' models in a database of their own
    session.sql("CREATE DATABASE IF NOT EXISTS sqlnb_connect")
    session.catalog.setCurrentDatabase("sqlnb_connect")
    yield session
    session.stop()
    empty = getattr(getattr(jvm, "scala.None$"), "MODULE$")
    service.stop(empty, empty)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist's workers (``-n``, set in pyproject.toml), the tests that use the
    Spark session all run on one worker (``--dist loadgroup``): one JVM for the run, as
    in a run without workers. The Connect modules' slower cases are skipped unless
    SQLNB_SPARK_CONNECT=all."""
    everything = os.environ.get("SQLNB_SPARK_CONNECT") == "all"
    for item in items:
        # a Connect module's slower cases (its CONNECT_ALL_ONLY) run through Connect only
        # with SQLNB_SPARK_CONNECT=all; the classic session runs them in every run
        if not everything and item.name in getattr(getattr(item, "module", None), "CONNECT_ALL_ONLY", ()):
            item.add_marker(pytest.mark.skip(
                reason="through Spark Connect with SQLNB_SPARK_CONNECT=all (docs/spark.md); "
                       "the classic session runs it"))
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("spark"))
