"""What a write of a model on Spark costs in statements, and that the cheaper write still
answers as scikit-learn does.

Every statement the engine issues goes through the session's ``sql`` method: the engine
here runs on a session wrapper that counts those calls (catalog listings, reads, writes,
switches, functions alike) and passes each on unchanged.
"""

from __future__ import annotations

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
        # (a fit inserts its batch into the new version's empty tables: no join, no swap)
        assert counts["fit"] <= 27 and counts["refit"] <= 31, counts
        assert counts["partial_fit"] <= 20, counts
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
