"""What a write of a model on Spark costs in statements, and that the cheaper write still
answers as scikit-learn does.

Every statement the engine issues goes through the session's ``sql`` method: the engine
here runs on a session wrapper that counts those calls (catalog listings, reads, writes,
switches, functions alike) and passes each on unchanged.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB, MultinomialNB

import sqlnb
from sqlnb.engines.spark import SparkEngine

pytest.importorskip("pyspark.sql")

_rng = np.random.default_rng(7)
X = _rng.integers(0, 6, size=(40, 3)).astype(float)
Y = np.array(["a", "b", "c", "d"] * 10)
X[Y == "b", 0] += 3
X[Y == "c", 2] += 4
SCHEMA = "x0 double, x1 double, x2 double, y string"
ROWS = [(*map(float, x), str(y)) for x, y in zip(X, Y)]


def _code(statement: str) -> str:
    """A statement without its leading comments."""
    return re.sub(r"\A(?:\s+|--[^\n]*)*", "", statement)


class CountingSession:
    """A SparkSession whose ``sql`` calls are kept (the text of each), all else passed on."""

    def __init__(self, session):
        self.session = session
        self.statements: list[str] = []

    def sql(self, query, *args, **kwargs):
        self.statements.append(query)
        return self.session.sql(query, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.session, name)


@pytest.mark.parametrize("family, estimator", [("gaussian", GaussianNB),
                                               ("multinomial", MultinomialNB)])
def test_a_spark_write_costs_few_statements_and_answers_as_scikit_learn(
        spark, family, estimator):
    first = spark.createDataFrame(ROWS[:30], SCHEMA)
    batch = spark.createDataFrame(ROWS[30:], SCHEMA)
    everything = spark.createDataFrame(ROWS, SCHEMA)
    counting = CountingSession(spark)
    engine = SparkEngine(counting)
    name = f"counted_{family}"
    model = sqlnb.NaiveBayes(name, con=engine, family=family)
    try:
        model.fit(first, "y")
        fit_statements = len(counting.statements)
        # a first fit of the name, then a refit over it (its old version is dropped)
        counting.statements.clear()
        model.fit(first, "y")
        refit_statements = len(counting.statements)
        counting.statements.clear()
        model.partial_fit(batch, "y")
        update_statements = len(counting.statements)
        counting.statements.clear()
        predicted = model.predict_proba(everything).toPandas()
        predict_statements = len(counting.statements)
        counting.statements.clear()
        model.predict_proba(everything).toPandas()
        later_predict_statements = len(counting.statements)

        counts = {"fit": fit_statements, "refit": refit_statements,
                  "partial_fit": update_statements, "predict": predict_statements,
                  "later predict": later_predict_statements}
        # a write: one look at the catalog (its functions' too where it writes them), the
        # batch scan and its checks, one statement per new statistics table (an update's
        # from old and batch together; the features it leaves as they are), the metadata
        # with its row, then that row and the new statistics read back in one statement
        # (the class count, the checks and the parameters derived from them in the
        # driver), the switch, the drops and the scoring functions (an update that
        # keeps the classes re-creates only the two holding the parameters: the joint
        # log-likelihood and <name>_explain, a statement each, as Spark runs one per
        # call); the first
        # predict after it reuses what the write compiled the functions from: the version
        # stamp and the scoring statement, as a later predict
        # (a fit inserts its batch into the new version's empty tables: no join, no swap;
        # the parameter views over the new version are not made, nothing reading them; the
        # fit's count of the source's rows is read with the statistics; an update leaves
        # its batch table for the next one)
        assert counts["fit"] <= 24 and counts["refit"] <= 28, counts
        assert counts["partial_fit"] <= 17, counts
        assert counts["predict"] <= counts["later predict"] <= 2, counts

        reference = estimator().fit(X, Y)
        got = predicted[[f"proba_{c}" for c in reference.classes_]].to_numpy()
        np.testing.assert_allclose(got, reference.predict_proba(X), rtol=0, atol=1e-9)
        # the scoring functions the update wrote answer as predict does
        spark.createDataFrame(ROWS, SCHEMA).createOrReplaceTempView("counted_rows")
        labels = [r[0] for r in spark.sql(
            f"SELECT {name}_predict(struct(x0, x1, x2)) FROM counted_rows").collect()]
        assert labels == list(reference.predict(X))
    finally:
        model.drop()


def test_updates_overwrite_the_batch_table_and_a_write_read_back_by_spark_answers_the_same(
        spark, monkeypatch):
    """An update leaves its batch table for the next one to overwrite; one dropped by hand in
    between is made again. A write whose parameters cannot be derived in the driver reads
    them through Spark, from the scratch parameter views it then creates. Each state
    answers as scikit-learn's GaussianNB fitted on the same rows; the model's drop leaves
    no table behind."""
    import sqlnb.pipeline

    first = spark.createDataFrame(ROWS[:30], SCHEMA)
    batch = spark.createDataFrame(ROWS[30:], SCHEMA)  # (no feature whose sums cancel)
    everything = spark.createDataFrame(ROWS, SCHEMA)
    counting = CountingSession(spark)
    name = "overwritten_batch"
    batch_table = f"__sqlnb_batch_{name}"
    model = sqlnb.NaiveBayes(name, con=SparkEngine(counting), family="gaussian")
    try:
        model.fit(first, "y")
        model.partial_fit(batch, "y")
        counting.statements.clear()
        model.partial_fit(batch, "y")  # over the batch the first update left
        assert any(_code(s).startswith(f"INSERT OVERWRITE TABLE `default`.`{batch_table}`")
                   for s in counting.statements), counting.statements
        assert not any(_code(s).startswith("DROP") and batch_table in s
                       for s in counting.statements)
        assert len(counting.statements) <= 16, counting.statements
        reference = GaussianNB().fit(np.vstack([X, X[30:]]), np.concatenate([Y, Y[30:]]))
        got = model.predict_proba(everything).toPandas()
        np.testing.assert_allclose(got[[f"proba_{c}" for c in reference.classes_]].to_numpy(),
                                   reference.predict_proba(X), rtol=0, atol=1e-9)

        spark.sql(f"DROP TABLE {batch_table}")  # gone: the next update makes it again

        def underived(*args, **kwargs):
            raise RuntimeError("not derived in the driver")

        monkeypatch.setattr(sqlnb.pipeline.Pipeline, "_derived", underived)
        counting.statements.clear()
        model.partial_fit(batch, "y")
        assert any("TEMPORARY VIEW" in s and f"__sqlnb_staged_{name}_feature_params" in s
                   for s in counting.statements)
        reference = GaussianNB().fit(np.vstack([X, X[30:], X[30:]]),
                                     np.concatenate([Y, Y[30:], Y[30:]]))
        got = model.predict_proba(everything).toPandas()
        np.testing.assert_allclose(got[[f"proba_{c}" for c in reference.classes_]].to_numpy(),
                                   reference.predict_proba(X), rtol=0, atol=1e-9)
        assert batch_table in {t.name for t in spark.catalog.listTables()}
    finally:
        model.drop()
    # (the scratch parameter views are the session's, replaced by the next write)
    assert not [t.name for t in spark.catalog.listTables()
                if name in t.name and not t.isTemporary]
