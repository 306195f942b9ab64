"""Plots show the numbers sqlnb computed, with readable, non-overlapping labels from 2 to 50
classes and long class names."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import load
from matplotlib.backends.backend_agg import FigureCanvasAgg
from sklearn.metrics import confusion_matrix
from sklearn.naive_bayes import GaussianNB

import sqlnb
import sqlnb.plot
from sqlnb import diagnostics

LONG = "a class name far longer than any axis has room for"


def drawn(figure):
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas.get_renderer()


def assert_no_overlap(labels, renderer, axis):
    """Consecutive tick labels do not overlap along the axis they run along."""
    boxes = [label.get_window_extent(renderer) for label in labels if label.get_text()]
    assert boxes
    if axis == "y":
        spans = sorted((b.y0, b.y1) for b in boxes)
    else:
        spans = sorted((b.x0, b.x1) for b in boxes)
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end - 0.5, (start, end)


def many_classes(con, k):
    """k classes along one feature, some with long names; model fitted on 20 rows each."""
    rng = np.random.default_rng(0)
    labels = [f"{LONG} {i}" if i % 5 == 0 else f"class {i}" for i in range(k)]
    frame = pd.DataFrame({
        "label": np.repeat(labels, 20),
        "x": np.repeat(np.arange(k, dtype=float), 20) + rng.normal(0, 0.8, 20 * k),
        "z": rng.normal(0, 1, 20 * k),
    })
    model = sqlnb.NaiveBayes("many", con=con).fit(frame, "label")
    return model, frame


def test_confusion_shows_counts_and_row_shares(con):
    X, y = load("iris")
    frame = pd.DataFrame(X[:, :2], columns=["a", "b"]).assign(y=y)
    model = sqlnb.NaiveBayes("m", con=con).fit(frame, "y")
    report = model.evaluate(frame)
    figure = sqlnb.plot.confusion(report)
    counts, shares = (ax.get_images()[0].get_array() for ax in figure.axes[:2])
    expected = confusion_matrix(y, GaussianNB().fit(X[:, :2], y).predict(X[:, :2]))
    np.testing.assert_array_equal(counts, expected)
    np.testing.assert_allclose(shares, expected / expected.sum(axis=1, keepdims=True))
    assert [t.get_text() for t in figure.axes[0].get_xticklabels()] == ["0", "1", "2"]
    cell_texts = {t.get_text() for t in figure.axes[0].texts}
    assert {str(v) for v in expected.ravel()} <= cell_texts


def test_reliability_plots_the_curve(con):
    curve = {"kind": "binary", "positive": "yes", "n_bins": 4, "bins": [
        {"bin": 0, "lower": 0.0, "upper": 0.25, "n": 10, "mean_predicted": 0.1,
         "observed": 0.2},
        {"bin": 3, "lower": 0.75, "upper": 1.0, "n": 5, "mean_predicted": 0.9,
         "observed": 0.8}]}
    figure = sqlnb.plot.reliability(curve)
    line = figure.axes[0].get_lines()[1]
    assert line.get_xdata().tolist() == [0.1, 0.9]
    assert line.get_ydata().tolist() == [0.2, 0.8]
    assert [bar.get_height() for bar in figure.axes[1].patches] == [10, 5]
    assert "yes" in figure.axes[0].get_title()


def test_long_class_names_are_shortened():
    assert sqlnb.plot.short(LONG) == LONG[:29] + "…"
    assert len(sqlnb.plot.short(LONG)) == sqlnb.plot.LABEL_WIDTH
    assert sqlnb.plot.short("short") == "short"


@pytest.mark.parametrize("k", [2, 12, 50])
def test_confusion_labels_do_not_overlap(con, k):
    model, frame = many_classes(con, k)
    figure = sqlnb.plot.evaluation(model.evaluate(frame),
                                   diagnostics.model_reliability(model, frame))
    renderer = drawn(figure)
    matrix = figure.axes[0]
    assert_no_overlap(matrix.get_yticklabels(), renderer, "y")
    assert_no_overlap(matrix.get_xticklabels(), renderer, "x")
    assert len(matrix.get_yticklabels()) == k
    assert min(t.get_fontsize() for t in matrix.get_yticklabels()) >= 6.5
    assert bool(matrix.texts) is (k <= sqlnb.plot.ANNOTATE_UP_TO)


@pytest.mark.parametrize("k", [3, 50])
def test_model_overview_labels_do_not_overlap(con, k):
    model, _ = many_classes(con, k)
    figure = sqlnb.plot.overview(model, k=2)
    renderer = drawn(figure)
    priors = figure.subfigs[0].axes[0]
    assert_no_overlap(priors.get_yticklabels(), renderer, "y")
    assert [t.get_text() for t in priors.get_yticklabels()] == \
        [sqlnb.plot.short(label) for label in model.classes_]
    np.testing.assert_allclose([bar.get_width() for bar in priors.patches], [1 / k] * k)


def test_gaussian_curves_peak_at_the_class_means(con):
    X, y = load("iris")
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(y=y)
    model = sqlnb.NaiveBayes("m", con=con).fit(frame, "y")
    figure = sqlnb.plot.feature_distribution(model, "c")
    theta = GaussianNB().fit(X, y).theta_[:, 2]
    for line, mean in zip(figure.axes[0].get_lines(), theta):
        peak = line.get_xdata()[np.argmax(line.get_ydata())]
        assert peak == pytest.approx(mean, abs=0.05)


def test_categorical_bars_are_the_class_probabilities(con):
    frame = pd.DataFrame({"y": ["a", "a", "b", "b"], "plan": ["x", "x", "x", "y"]})
    model = sqlnb.NaiveBayes("m", con=con, family="categorical").fit(frame, "y")
    figure = sqlnb.plot.feature_distribution(model, "plan")
    heights = [bar.get_height() for bar in figure.axes[0].patches]
    # class a: x 2 of 2, y 0 of 2; class b: 1 and 1 of 2 (alpha = 1, two categories)
    np.testing.assert_allclose(heights, [3 / 4, 1 / 4, 2 / 4, 2 / 4])
