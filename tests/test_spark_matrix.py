"""The capability matrix on Spark: every kind of model × every operation, on a model that
lives on Spark.

The same kinds, rows and independent references as ``test_matrix.py`` (imported from it):
scikit-learn's estimator, the NumPy Poisson closed form, their sum for ``family="auto"``,
one per group, ``CountVectorizer`` before the estimator for text. On Spark the "SQL macros"
are the model's stored SQL functions (``<name>_predict(struct(…))``…), ``to_sql`` is
``to_sql(..., dialect="spark")`` run by ``spark.sql``, an export is imported into Spark
and into DuckDB, and a search is given a fold column (``cv=<number>`` is DuckDB-only).

A write costs seconds on Spark, so every model of a kind is fitted once for the module and
its checks read one Spark job each where they can: the cells of one kind share the
stages (fit; partial_fit then forget; merge) computed at their first use. Cells that cannot
work are listed in ``SPARK_GAPS`` with the ``sqlnb.errors`` exception they raise; cells that
answer wrongly or fail without a clear refusal are known bugs (``KNOWN_BUGS``), run as
expected failures. The matrix: docs/architecture.md ("On Spark").
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, confusion_matrix, log_loss
from test_matrix import (
    ALL,
    CLASSES,
    GAPS,
    KINDS,
    TOL,
    contrasts,
    expected,
    make_data,
    search_reference,
)

import sqlnb
from sqlnb.script import run as run_script

pytest.importorskip("pyspark.sql")

# Spark spends seconds on every write: by default the matrix runs for the two kinds that
# compose the most (a group key over mixed families, a group key over a text column);
# SQLNB_SPARK_MATRIX=all runs every kind (docs/development.md).
SPARK_KINDS = (ALL if os.environ.get("SQLNB_SPARK_MATRIX") == "all"
               else ["per-group auto", "per-group text"])

OUTPUTS = {"predict": None, "proba": "proba_", "log_proba": "log_proba_", "joint": "jll_"}
METHODS = {"predict": "predict", "proba": "predict_proba", "log_proba": "predict_log_proba",
           "joint": "predict_joint_log_proba"}

# Cells that cannot work on Spark: (kind, operation) -> the sqlnb.errors exception and a
# pattern of its message. DuckDB's gaps (GAPS) hold on Spark too.
SPARK_GAPS: dict[tuple[str, str], tuple[type[Exception], str]] = {
    **GAPS,
}


# Cells that answer wrongly or fail with Spark's own error instead of a clear refusal:
# known bugs, marked as failures expected (strict: a fix turns them into passes to list).
KNOWN_BUGS: dict[tuple[str, str], str] = {}  # none left


def expect_bug(kind: str, operation: str, check: Callable[[], None]) -> None:
    """Run the cell's check; a known bug's must fail (then the test is an expected
    failure), and one that passes fails the test until KNOWN_BUGS drops it."""
    if (kind, operation) not in KNOWN_BUGS:
        check()
        return
    try:
        check()
    except Exception:  # noqa: BLE001 - Spark's own errors are part of the bug
        pytest.xfail(KNOWN_BUGS[kind, operation])
    pytest.fail(f"({kind}, {operation}) works now: drop it from KNOWN_BUGS")


def gap(kind: str, operation: str) -> tuple[type[Exception], str] | None:
    return SPARK_GAPS.get((kind, operation))


# ---------------------------------------------------------------------- Spark tables
@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return make_data()


@pytest.fixture(scope="module")
def scored(data) -> pd.DataFrame:
    """Every row, and six rows of a group no fit has seen (as test_matrix.py scores)."""
    unseen = data.head(6).assign(id=data["id"].head(6) + 1000, g="east")
    return pd.concat([data, unseen], ignore_index=True)


TABLES = {"everything": "smx_everything", "a": "smx_a", "b": "smx_b", "score": "smx_score"}


@pytest.fixture(scope="module")
def tables(spark, data, scored):
    """The rows as Spark tables: every row, the two batches, the rows to score."""
    frames = {"everything": data, "a": data[data["part"] == "A"],
              "b": data[data["part"] == "B"], "score": scored}
    for key, frame in frames.items():  # views over the rows in memory: no file written
        spark.createDataFrame(frame.reset_index(drop=True)).createOrReplaceTempView(
            TABLES[key])
    yield TABLES
    for view in TABLES.values():
        spark.catalog.dropTempView(view)


class Stages:
    """Every model of a kind, built at the first cell that needs it, and what each stage
    answered (or the exception it raised)."""

    def __init__(self, spark, tables) -> None:
        self.spark, self.tables = spark, tables
        self.done: dict[tuple[str, str], Any] = {}
        self.count = 0

    def new_model(self, kind: str, functions: bool = False) -> sqlnb.NaiveBayes:
        """A model of the kind; only the one the functions' cell calls writes its SQL
        functions at every write (each costs Spark a statement)."""
        spec = KINDS[kind]
        self.count += 1
        return sqlnb.NaiveBayes(f"smx{self.count}", con=self.spark, family=spec.family,
                                sql_macros=functions, **spec.params)

    def fit(self, kind: str, table: str, functions: bool = False) -> sqlnb.NaiveBayes:
        return self.new_model(kind, functions).fit(self.tables[table], "y", **KINDS[kind].fit)

    def get(self, kind: str, stage: str, build: Callable[[], Any]) -> Any:
        """The stage's answer; raises what it raised (each time it is asked)."""
        if (kind, stage) not in self.done:
            try:
                self.done[kind, stage] = ("ok", build())
            except Exception as error:  # noqa: BLE001 - the cell's test judges it
                self.done[kind, stage] = ("error", error)
        status, value = self.done[kind, stage]
        if status == "error":
            raise value
        return value


@pytest.fixture(scope="module")
def stages(spark, tables) -> Stages:
    return Stages(spark, tables)


def answers(model: sqlnb.NaiveBayes, table: str, wanted=tuple(OUTPUTS)) -> dict[str, Any]:
    """The model's outputs over ``table`` in one Spark job (the outputs joined on id), rows
    in id order: the predictions, and an array with a column per class per other output."""
    joined = None
    for output in wanted:
        frame = getattr(model, METHODS[output])(table)
        prefix = OUTPUTS[output]
        columns = ["prediction"] if prefix is None else [f"{prefix}{c}" for c in model.classes_]
        frame = frame.select("id", *columns)
        joined = frame if joined is None else joined.join(frame, "id")
    got = joined.toPandas().sort_values("id")
    result = {}
    for output in wanted:
        prefix = OUTPUTS[output]
        result[output] = (got["prediction"].tolist() if prefix is None else
                          got[[f"{prefix}{c}" for c in model.classes_]].to_numpy())
    return result


def assert_as_reference(got: dict[str, Any], kind: str, train: pd.DataFrame,
                        test: pd.DataFrame) -> None:
    for output, value in got.items():
        want = expected(kind, train, test, output)
        if output == "predict":
            assert value == want
        else:
            np.testing.assert_allclose(value, want, **TOL)


def cell(stages: Stages, kind: str, operation: str, build: Callable[[], Any]) -> Any:
    """The cell's answer, or None when the cell is a gap: then it must raise its error."""
    refusal = gap(kind, operation)
    if refusal is None:
        return stages.get(kind, operation, build)
    error, message = refusal
    with pytest.raises(error, match=message):
        stages.get(kind, operation, build)
    return None


def fitted(stages: Stages, kind: str) -> sqlnb.NaiveBayes:
    return stages.get(kind, "fit", lambda: stages.fit(kind, "everything", functions=True))


def fitted_answers(stages: Stages, kind: str) -> dict[str, Any]:
    return stages.get(kind, "fit answers",
                      lambda: answers(fitted(stages, kind), stages.tables["score"]))


# ---------------------------------------------------------------------- fit and predict
@pytest.mark.parametrize("kind", SPARK_KINDS)
def test_fit(stages, data, scored, kind):
    if cell(stages, kind, "fit", lambda: fitted(stages, kind)) is None:
        return
    assert fitted(stages, kind).classes_ == CLASSES
    got = fitted_answers(stages, kind)
    assert_as_reference({k: got[k] for k in ("predict", "proba")}, kind, data, scored)


@pytest.mark.parametrize("kind", SPARK_KINDS)
def test_predict_outputs(stages, data, scored, kind):
    """predict, predict_proba, predict_log_proba and predict_joint_log_proba."""
    assert_as_reference(fitted_answers(stages, kind), kind, data, scored)


# ---------------------------------------------------------------------- updates
def updated(stages: Stages, kind: str) -> tuple[sqlnb.NaiveBayes, dict[str, Any]]:
    """A model given the batches by partial_fit, and its answers then."""
    def build():
        model = stages.new_model(kind)
        model.partial_fit(stages.tables["a"], "y", **KINDS[kind].fit)
        model.partial_fit(stages.tables["b"], "y", **KINDS[kind].fit)
        return model, answers(model, stages.tables["score"], ("predict", "proba"))
    return stages.get(kind, "partial_fit", build)


def forgotten(stages: Stages, kind: str) -> tuple[sqlnb.NaiveBayes, dict[str, Any]]:
    """That model after forgetting the second batch: a model of the first batch."""
    def build():
        model, _ = updated(stages, kind)
        model.forget(stages.tables["b"], "y", **KINDS[kind].fit)
        return model, answers(model, stages.tables["score"], ("predict", "proba"))
    return stages.get(kind, "forget", build)


@pytest.mark.parametrize("kind", SPARK_KINDS)
def test_partial_fit_equals_fit_on_the_union(stages, data, scored, kind):
    got = cell(stages, kind, "partial_fit", lambda: updated(stages, kind))
    if got is not None:
        assert got[0].classes_ == CLASSES
        assert_as_reference(got[1], kind, data, scored)


@pytest.mark.parametrize("kind", SPARK_KINDS)
def test_forget_equals_fit_on_the_rest(stages, data, scored, kind):
    got = cell(stages, kind, "forget", lambda: forgotten(stages, kind))
    if got is not None:
        assert_as_reference(got[1], kind, data[data["part"] == "A"], scored)


@pytest.mark.parametrize("kind", SPARK_KINDS)
def test_merge_equals_fit_on_the_union(spark, stages, data, scored, kind):
    def build():
        first = (forgotten(stages, kind)[0] if gap(kind, "forget") is None
                 else stages.fit(kind, "a"))
        second = stages.fit(kind, "b")
        first.merge(second)  # into one of them (test_matrix.py also merges into a new one)
        return answers(first, stages.tables["score"], ("predict", "proba"))

    got = cell(stages, kind, "merge", build)
    if got is not None:
        assert_as_reference(got, kind, data, scored)


# ---------------------------------------------------------------------- plain SQL
@pytest.mark.parametrize("kind", SPARK_KINDS)
def test_sql_functions_score_as_predict(spark, stages, kind):
    def build():
        model = fitted(stages, kind)  # its fit wrote the functions: create_macros rewrites
        model.create_macros()  # them (and refuses a kind that has none)
        spec = KINDS[kind]
        # the STRUCT the functions take: the model's features (its text column), and its
        # group column (a row of a group no fit saw is scored by the pooled model)
        columns = spec.fit.get("features") or [spec.fit["text"]]
        row = f"struct({', '.join(columns + ([spec.fit['group_by']] if 'group_by' in spec.fit else []))})"
        return spark.sql(
            f"SELECT id, {model.name}_predict({row}) AS p, "
            f"{model.name}_predict_proba({row}) AS pp, "
            f"{model.name}_joint_log_likelihood({row}) AS j "
            f"FROM {stages.tables['score']} ORDER BY id").collect()

    def check():
        rows = cell(stages, kind, "sql macros", build)
        if rows is None:
            return
        want = fitted_answers(stages, kind)
        assert [r.p for r in rows] == want["predict"]
        np.testing.assert_allclose([[r.pp[c] for c in CLASSES] for r in rows],
                                   want["proba"], **TOL)
        np.testing.assert_allclose([list(r.j) for r in rows], want["joint"], **TOL)

    expect_bug(kind, "sql macros", check)


@pytest.mark.parametrize("kind", SPARK_KINDS)
def test_to_sql_scores_as_predict(spark, stages, kind):
    def build():
        model = fitted(stages, kind)
        statements = {output: model.to_sql(stages.tables["score"], output=output,
                                           dialect="spark")
                      for output in ("predict", "proba", "joint")}
        # one Spark job: the three statements joined on id
        joined = spark.sql(statements["predict"]).select("id", "prediction")
        for output in ("proba", "joint"):
            prefix = OUTPUTS[output]
            joined = joined.join(spark.sql(statements[output]).select(
                "id", *[f"{prefix}{c}" for c in CLASSES]), "id")
        return joined.toPandas().sort_values("id")

    got = cell(stages, kind, "to_sql", build)
    if got is None:
        return
    want = fitted_answers(stages, kind)
    assert got["prediction"].tolist() == want["predict"]
    for output in ("proba", "joint"):
        np.testing.assert_allclose(got[[f"{OUTPUTS[output]}{c}" for c in CLASSES]].to_numpy(),
                                   want[output], **TOL)


@pytest.mark.parametrize("kind", SPARK_KINDS)
def test_fit_sql_builds_the_model_fit_builds(spark, stages, kind):
    """The fit recorded as a dry run under a new name, its script then run by Spark: the
    model it builds answers as the fitted one."""
    def build():
        model = stages.new_model(kind)
        script = model.fit_sql(stages.tables["everything"], "y", **KINDS[kind].fit)
        assert not spark.catalog.tableExists(f"{model.name}_meta")  # a dry run
        run_script(spark, script)
        return answers(sqlnb.load(spark, model.name), stages.tables["score"],
                       ("predict", "proba"))

    got = cell(stages, kind, "fit_sql", build)
    if got is None:
        return
    want = fitted_answers(stages, kind)
    assert got["predict"] == want["predict"]
    np.testing.assert_allclose(got["proba"], want["proba"], rtol=0, atol=1e-9)


# ---------------------------------------------------------------------- search
@pytest.mark.parametrize("kind", SPARK_KINDS)
def test_search_scores_each_candidate_as_its_fits_on_the_other_folds(stages, data, kind):
    spec = KINDS[kind]
    (name, _values), = spec.grid.items()

    def build():
        result = stages.new_model(kind).search(
            stages.tables["everything"], "y", param_grid=spec.grid, cv="fold", refit=False,
            **spec.fit)
        return result.cv_results_.toPandas()

    results = cell(stages, kind, "search", build)
    if results is None:
        return
    scores = results.sort_values(f"param_{name}")["mean_test_score"]
    np.testing.assert_allclose(scores.to_numpy(), search_reference(data, kind), **TOL)


# ---------------------------------------------------------------------- files and metrics
@pytest.mark.parametrize("kind", SPARK_KINDS)
def test_export_then_import_scores_bit_for_bit(spark, stages, scored, kind, tmp_path):
    """Imported into Spark: the same joint log-likelihoods, bit for bit. Imported into
    DuckDB: the same statistics bit for bit, so the same labels and probabilities."""
    def build():
        model = fitted(stages, kind)
        folder = model.export(tmp_path / "model")
        stages.count += 1
        into_spark = sqlnb.import_model(spark, folder, name=f"smx{stages.count}")
        duck = duckdb.connect()
        duck.register("frame", scored)
        duck.execute("CREATE TABLE score AS SELECT * FROM frame")
        into_duck = sqlnb.import_model(duck, folder)
        frame = into_duck.predict_joint_log_proba("score").df().sort_values("id")
        labels = into_duck.predict("score").df().sort_values("id")["prediction"].tolist()
        duck.close()
        return (into_spark.classes_, answers(into_spark, stages.tables["score"],
                                             ("predict", "joint")),
                into_duck.classes_, labels, frame[[f"jll_{c}" for c in CLASSES]].to_numpy())

    def check():
        got = cell(stages, kind, "export", build)
        if got is None:
            return
        spark_classes, spark_answers, duck_classes, duck_labels, duck_joint = got
        want = fitted_answers(stages, kind)
        assert spark_classes == duck_classes == CLASSES
        assert np.array_equal(spark_answers["joint"], want["joint"])
        assert spark_answers["predict"] == want["predict"]
        assert duck_labels == want["predict"]
        np.testing.assert_allclose(duck_joint, want["joint"], **TOL)

    expect_bug(kind, "export", check)


@pytest.mark.parametrize("kind", SPARK_KINDS)
def test_evaluate_equals_sklearn_metrics_on_the_reference(stages, data, scored, kind):
    metrics = cell(stages, kind, "evaluate",
                   lambda: fitted(stages, kind).evaluate(stages.tables["score"]))
    if metrics is None:
        return
    predicted = expected(kind, data, scored, "predict")
    proba = expected(kind, data, scored, "proba")
    assert metrics["n"] == len(scored)
    assert metrics["labels"] == CLASSES
    assert metrics["accuracy"] == pytest.approx(accuracy_score(scored["y"], predicted),
                                                rel=1e-12)
    assert metrics["confusion_matrix"] == confusion_matrix(scored["y"], predicted).tolist()
    assert metrics["log_loss"] == pytest.approx(log_loss(scored["y"], proba, labels=CLASSES),
                                                rel=1e-9)


@pytest.mark.parametrize("kind", SPARK_KINDS)
def test_top_features_score_as_the_reference_parameters(stages, data, kind):
    rows = cell(stages, kind, "top_features",
                lambda: [tuple(r) for r in fitted(stages, kind).top_features(k=1000).collect()])
    if rows is None:
        return
    reference = contrasts(kind, data)
    got = {}
    for label, rank, feature, category, score in rows:
        if category is not None and KINDS[kind].family == "categorical":
            category = int(category)
        got[label, feature, category] = score
    assert set(got) == set(reference), set(got) ^ set(reference)
    np.testing.assert_allclose([got[key] for key in reference], list(reference.values()),
                               **TOL)
    for label in CLASSES:
        ranked = [r for r in rows if r[0] == label]
        assert sorted(r[1] for r in ranked) == list(range(1, len(ranked) + 1))
        assert [r[4] for r in sorted(ranked, key=lambda r: r[1])] == \
            sorted((r[4] for r in ranked), reverse=True)

