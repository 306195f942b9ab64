"""The benchmark cases. Each case generates its data (cached), measures its steps side by
side with ``common.compare`` and adds rows, ratios and targets to the report.

Cases that need an API another issue adds (``partial_fit``, text models, SQL macros)
check for it first and leave a "not available" line instead of failing.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import common
import steps
from common import Measurement, compare

import sqlnb

GIB = 1024**3


@dataclass
class Scale:
    """Sizes for one ``--scale``; ``full`` is the issue's specification."""

    name: str
    dense_rows: int
    categorical_rows: int
    wide_rows: int
    batch_rows: int          # rows per batch; 50 batches
    text_rows: int
    memory_rows: list[int]
    scaling_rows: list[int]
    scaling_features: list[int]
    features_rows: int       # rows of the features sweep
    scaling_classes: list[int]
    classes_rows: int        # rows of the classes sweep
    repeats: int = 3
    batches: int = 50
    latency_calls: int = 200


SCALES = {
    "tiny": Scale("tiny", 20_000, 20_000, 5_000, 500, 2_000, [20_000], [10_000, 20_000],
                  [5, 10], 5_000, [2, 5], 10_000, repeats=1, batches=3, latency_calls=5),
    "small": Scale("small", 200_000, 200_000, 20_000, 2_000, 20_000, [200_000, 500_000],
                   [100_000, 200_000, 500_000], [10, 50, 200], 20_000, [2, 10, 50], 100_000),
    "medium": Scale("medium", 1_000_000, 1_000_000, 200_000, 20_000, 200_000,
                    [1_000_000, 5_000_000], [1_000_000, 2_000_000, 5_000_000],
                    [10, 100, 500], 100_000, [2, 10, 100], 1_000_000),
    "full": Scale("full", 5_000_000, 5_000_000, 1_000_000, 100_000, 1_000_000,
                  [5_000_000, 20_000_000, 50_000_000],
                  [1_000_000, 5_000_000, 20_000_000, 50_000_000],
                  [10, 100, 500, 2_000], 100_000, [2, 10, 30, 100], 1_000_000),
}


@dataclass
class Row:
    case: str
    step: str
    measurement: Measurement


@dataclass
class Target:
    name: str
    measured: str
    goal: str
    met: bool | None  # None: could not be measured


@dataclass
class Report:
    scale: Scale
    data_dir: Path
    rows: list[Row] = field(default_factory=list)
    ratios: list[tuple[str, str, float]] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # sweep name -> list of (x, series, median seconds)
    scaling: dict[str, list[tuple[int, str, float]]] = field(default_factory=dict)

    def add(self, case: str, results: dict[str, Measurement]) -> dict[str, Measurement]:
        for step, measurement in results.items():
            self.rows.append(Row(case, step, measurement))
            if measurement.error:
                self.notes.append(f"{case}, {step}: failed ({measurement.error})")
        return results

    def ratio(self, case: str, text: str, numerator: Measurement,
              denominator: Measurement) -> float:
        value = numerator.median / denominator.median
        self.ratios.append((case, text, value))
        return value

    def target(self, name: str, value: float, goal: float, at_most: bool = False,
               unit: str = "x") -> None:
        if math.isnan(value):  # a step failed
            self.targets.append(Target(name, "not measured", _goal(goal, at_most, unit), None))
            return
        met = value <= goal if at_most else value >= goal
        measured = f"{value:.2f}{unit}" if unit == "x" else f"{value:.0f} {unit}"
        self.targets.append(Target(name, measured, _goal(goal, at_most, unit), met))

    def out(self, name: str) -> Path:
        path = self.data_dir / "out" / f"{name}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def model_db(self, name: str) -> Path:
        return self.data_dir / "models" / f"{name}.duckdb"


def _goal(goal: float, at_most: bool, unit: str) -> str:
    amount = f"{goal:g}{unit}" if unit == "x" else f"{goal:g} {unit}"
    return f"{'<=' if at_most else '>='} {amount}"


# ---------------------------------------------------------------------- cases
def dense_gaussian(report: Report) -> None:
    """5M x 20, 5 classes: sqlnb fit and predict vs scikit-learn vs the floor."""
    s = report.scale
    path = common.dense(s.dense_rows, data_dir=report.data_dir)
    db = report.model_db("dense")
    steps.fit_model(db, path, "gaussian")
    r = report.add(f"dense Gaussian ({s.dense_rows:,} x 20, 5 classes)", compare({
        "floor: DuckDB sum of every column": (steps.prepare_floor, path),
        "sqlnb fit (Parquet)": (steps.prepare_sqlnb_fit, path, "gaussian"),
        "sqlnb fit, second in its process (Parquet)": (steps.prepare_sqlnb_fit_warm, path,
                                                       "gaussian"),
        "scikit-learn fit (read Parquet -> NumPy -> fit)": (steps.prepare_sklearn_fit, path,
                                                             "gaussian"),
        "scikit-learn fit (arrays in memory)": (steps.prepare_sklearn_fit_in_memory, path,
                                                "gaussian"),
        "sqlnb predict (Parquet -> Parquet)": (steps.prepare_sqlnb_predict, db, path,
                                               report.out("dense")),
        "scikit-learn predict (arrays in memory)": (steps.prepare_sklearn_predict, path,
                                                    "gaussian"),
    }, s.repeats))
    floor, fit, warm_fit, skl_fit, skl_fit_mem, predict, skl_predict = r.values()
    case = "dense"
    report.target("dense fit / floor", report.ratio(case, "sqlnb fit / floor", fit, floor),
                  1.3, at_most=True)
    report.target("dense fit, second in its process / floor",
                  report.ratio(case, "sqlnb fit (second in its process) / floor", warm_fit,
                               floor), 1.3, at_most=True)
    report.target("scikit-learn end-to-end fit / sqlnb fit",
                  report.ratio(case, "scikit-learn end-to-end fit / sqlnb fit", skl_fit, fit), 15)
    report.ratio(case, "scikit-learn in-memory fit / sqlnb fit", skl_fit_mem, fit)
    report.target("scikit-learn predict (in memory) / sqlnb predict (Parquet -> Parquet)",
                  report.ratio(case, "scikit-learn in-memory predict / sqlnb predict",
                               skl_predict, predict), 4)


def categorical(report: Report) -> None:
    """5M rows x 10 string columns: sqlnb vs OrdinalEncoder + CategoricalNB."""
    s = report.scale
    path = common.categorical(s.categorical_rows, data_dir=report.data_dir)
    db = report.model_db("categorical")
    steps.fit_model(db, path, "categorical")
    r = report.add(f"categorical ({s.categorical_rows:,} x 10 strings, 20 categories, 5 classes)",
                   compare({
        "sqlnb fit (Parquet)": (steps.prepare_sqlnb_fit, path, "categorical"),
        "scikit-learn read -> OrdinalEncoder -> CategoricalNB.fit":
            (steps.prepare_sklearn_categorical_fit, path),
        "sqlnb predict (Parquet -> Parquet)": (steps.prepare_sqlnb_predict, db, path,
                                               report.out("categorical")),
        "scikit-learn predict (encoded arrays in memory)":
            (steps.prepare_sklearn_categorical_predict, path),
    }, s.repeats))
    fit, skl_fit, predict, skl_predict = r.values()
    report.target("scikit-learn encode + fit / sqlnb categorical fit",
                  report.ratio("categorical", "scikit-learn encode + fit / sqlnb fit",
                               skl_fit, fit), 10)
    report.ratio("categorical", "scikit-learn in-memory predict / sqlnb predict",
                 skl_predict, predict)


def multinomial_wide(report: Report) -> None:
    """1M rows x 200 count columns, multinomial."""
    s = report.scale
    path = common.counts(s.wide_rows, 200, data_dir=report.data_dir)
    db = report.model_db("wide")
    steps.fit_model(db, path, "multinomial")
    r = report.add(f"multinomial, wide counts ({s.wide_rows:,} x 200, 5 classes)", compare({
        "floor: DuckDB sum of every column": (steps.prepare_floor, path),
        "sqlnb fit (Parquet)": (steps.prepare_sqlnb_fit, path, "multinomial"),
        "scikit-learn fit (read Parquet -> NumPy -> fit)": (steps.prepare_sklearn_fit, path,
                                                             "multinomial"),
        "sqlnb predict (Parquet -> Parquet)": (steps.prepare_sqlnb_predict, db, path,
                                               report.out("wide")),
        "scikit-learn predict (arrays in memory)": (steps.prepare_sklearn_predict, path,
                                                    "multinomial"),
    }, s.repeats))
    floor, fit, skl_fit, predict, skl_predict = r.values()
    report.ratio("wide", "sqlnb fit / floor", fit, floor)
    report.ratio("wide", "scikit-learn end-to-end fit / sqlnb fit", skl_fit, fit)
    report.ratio("wide", "scikit-learn in-memory predict / sqlnb predict", skl_predict, predict)


def incremental(report: Report) -> None:
    """50 batches of partial_fit (Parquet files) vs scikit-learn's partial_fit loop."""
    s = report.scale
    partial_fit = getattr(sqlnb.NaiveBayes, "partial_fit", None)
    text_only = partial_fit is not None and _required(partial_fit, "text")
    if partial_fit is None or text_only:
        report.notes.append("incremental: not available (NaiveBayes.partial_fit for numeric "
                            "columns is missing in this build)")
        return
    paths = common.dense_batches(s.batches, s.batch_rows, data_dir=report.data_dir)
    r = report.add(f"incremental ({s.batches} batches of {s.batch_rows:,} x 20)", compare({
        "sqlnb partial_fit loop (Parquet batches)": (steps.prepare_sqlnb_partial_fit, paths,
                                                     "gaussian"),
        "scikit-learn partial_fit loop (read each batch -> NumPy)":
            (steps.prepare_sklearn_partial_fit, paths, "gaussian", 5),
    }, s.repeats))
    ours, theirs = r.values()
    report.ratio("incremental", "scikit-learn loop / sqlnb loop", theirs, ours)


def _required(function: Any, parameter: str) -> bool:
    found = inspect.signature(function).parameters.get(parameter)
    return found is not None and found.default is inspect.Parameter.empty


def text_case(report: Report) -> None:
    """Raw text -> predictions vs CountVectorizer + MultinomialNB."""
    s = report.scale
    if "text" not in inspect.signature(sqlnb.NaiveBayes.fit).parameters:
        report.notes.append("text: not available (NaiveBayes.fit has no text= option in "
                            "this build)")
        return
    path = common.text(s.text_rows, data_dir=report.data_dir)
    db = report.model_db("text")
    steps.fit_model(db, path, "multinomial", text="body")
    r = report.add(f"text ({s.text_rows:,} documents of 30 words, 5 classes)", compare({
        "sqlnb fit on raw text (Parquet)": (steps.prepare_sqlnb_text_fit, path),
        "scikit-learn read -> CountVectorizer -> MultinomialNB.fit":
            (steps.prepare_sklearn_text_fit, path),
        "sqlnb predict on raw text (Parquet -> Parquet)":
            (steps.prepare_sqlnb_predict, db, path, report.out("text")),
        "scikit-learn read -> transform -> predict": (steps.prepare_sklearn_text_predict, path),
    }, s.repeats))
    fit, skl_fit, predict, skl_predict = r.values()
    report.ratio("text", "scikit-learn fit / sqlnb fit", skl_fit, fit)
    report.ratio("text", "scikit-learn predict / sqlnb predict", skl_predict, predict)


def memory(report: Report) -> None:
    """Peak RSS of fit as rows grow (one run per size: the high-water mark barely varies)."""
    s = report.scale
    peak = Measurement()
    for rows in s.memory_rows:
        path = common.dense(rows, data_dir=report.data_dir)
        runs: dict[str, tuple] = {"sqlnb fit": (steps.prepare_sqlnb_fit, path, "gaussian")}
        # scikit-learn holds the Arrow table, the NumPy copy and per-class copies at once
        needed = rows * 20 * 8 * 4
        if needed < 0.35 * common.available_memory():
            runs["scikit-learn fit (read Parquet -> NumPy -> fit)"] = (
                steps.prepare_sklearn_fit, path, "gaussian")
        else:
            report.notes.append(
                f"memory: scikit-learn not run at {rows:,} rows (it would need about "
                f"{needed / GIB:.0f} GiB on a shared machine)")
        r = report.add(f"memory ({rows:,} x 20)", compare(runs, repeats=1))
        peak = r["sqlnb fit"]
    largest = s.memory_rows[-1]
    report.target(f"sqlnb fit peak RSS at {largest:,} rows", peak.median_rss / 1024**2,
                  1024, at_most=True, unit="MiB")


def scaling(report: Report) -> None:
    """sqlnb fit and predict time (and the floor) vs rows, features and classes."""
    s = report.scale
    sweeps = {
        "rows": [(rows, common.dense(rows, data_dir=report.data_dir)) for rows in s.scaling_rows],
        "features": [(n, common.dense(s.features_rows, n, data_dir=report.data_dir))
                     for n in s.scaling_features],
        "classes": [(k, common.dense(s.classes_rows, 20, k, data_dir=report.data_dir))
                    for k in s.scaling_classes],
    }
    for sweep, points in sweeps.items():
        series: list[tuple[int, str, float]] = []
        for x, path in points:
            db = report.model_db(f"scaling_{sweep}_{x}")
            steps.fit_model(db, path, "gaussian")
            r = report.add(f"scaling by {sweep}: {path.stem}", compare({
                "floor": (steps.prepare_floor, path),
                "sqlnb fit": (steps.prepare_sqlnb_fit, path, "gaussian"),
                "sqlnb predict": (steps.prepare_sqlnb_predict, db, path,
                                  report.out(f"scaling_{sweep}")),
            }, s.repeats))
            series += [(x, label, m.median) for label, m in r.items()]
            db.unlink(missing_ok=True)
        report.scaling[sweep] = series


def latency(report: Report) -> None:
    """One row scored, per call (model fitted on 10,000 rows x 20)."""
    s = report.scale
    path = common.dense(10_000, data_dir=report.data_dir)
    runs: dict[str, Any] = {
        "scikit-learn GaussianNB.predict(one row)": (steps.prepare_latency_sklearn, path),
        "sqlnb.sklearn.GaussianNB.predict(one row)": (steps.prepare_latency_facade, path),
        "sqlnb NaiveBayes.predict(one-row Arrow table)": (steps.prepare_latency_native, path),
    }
    if hasattr(sqlnb.NaiveBayes, "create_macros"):
        runs["SQL macro bench_predict(t) on a one-row table"] = (steps.prepare_latency_macro,
                                                                 path)
    else:
        report.notes.append("latency through the SQL macro: not available (no create_macros "
                            "in this build)")
    report.add("latency (seconds per call)", compare(runs, s.repeats, calls=s.latency_calls))


CASES = {
    "dense": dense_gaussian,
    "categorical": categorical,
    "wide": multinomial_wide,
    "incremental": incremental,
    "text": text_case,
    "memory": memory,
    "scaling": scaling,
    "latency": latency,
}
