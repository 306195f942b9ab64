"""Plots of evaluations and models, drawn with matplotlib from small SQL aggregates.

Every function takes what sqlnb already computed in the database (an evaluation report, a
reliability curve, a model's parameter views) and returns a matplotlib ``Figure``; none
reads scored rows. Names longer than ``LABEL_WIDTH`` characters are shortened, and layouts
change with the number of classes so that 2 to 50 classes stay readable: confusion cells
carry their numbers up to 20 classes, per-class curves and bars become heatmaps or
interval plots past 8 classes, and per-class panels of top features a heatmap past 12.

Each function draws into ``figure`` when given one (a ``Figure`` or a ``SubFigure``), so
figures can be combined, as :func:`evaluation` and :func:`overview` do.

>>> import duckdb, sqlnb, sqlnb.plot
>>> con = duckdb.connect()
>>> rel = con.sql("SELECT * FROM (VALUES ('a', 'a'), ('a', 'b'), ('b', 'b')) AS t(y, prediction)")
>>> figure = sqlnb.plot.confusion(sqlnb.evaluate(con, rel, "y"))
>>> figure.savefig("confusion.png")  # doctest: +SKIP

matplotlib is part of the ``cli`` extra (``pip install 'sqlnb[cli]'``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from . import diagnostics
from .errors import InvalidParameterError, SqlnbError

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure

    from .model import NaiveBayes

LABEL_WIDTH = 30  # characters of a class or feature name shown on an axis
ANNOTATE_UP_TO = 20  # classes up to which confusion cells carry their numbers
PANELS_UP_TO = 12  # classes up to which top features get one panel per class
CURVES_UP_TO = 8  # classes up to which Gaussian curves and grouped bars are drawn


def _new_figure(size: tuple[float, float]) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - matplotlib is in the cli and test extras
        raise InvalidParameterError("plots need matplotlib: pip install 'sqlnb[cli]'") from None
    return Figure(figsize=size, layout="constrained")


def short(label: Any, width: int = LABEL_WIDTH) -> str:
    """A label as text, cut to ``width`` characters with an ellipsis."""
    text = str(label)
    return text if len(text) <= width else text[: width - 1] + "…"


def _font(k: int) -> float:
    """Tick-label size for an axis with ``k`` labels."""
    return max(6.5, min(10.0, 200.0 / max(k, 1)))


def _label_axis(ax: Axes, axis: str, labels: list[Any]) -> None:
    names = [short(label) for label in labels]
    size = _font(len(names))
    positions = list(range(len(names)))
    if axis == "x":
        longest = max((len(n) for n in names), default=0)
        rotation = 0 if len(names) <= 4 and longest <= 8 else 90 if len(names) > 8 else 45
        ax.set_xticks(positions, names, fontsize=size, rotation=rotation,
                      ha="right" if rotation == 45 else "center",
                      rotation_mode="anchor" if rotation == 45 else "default")
    else:
        ax.set_yticks(positions, names, fontsize=size)


def _bars_height(k: int) -> float:
    return min(max(2.4, 0.17 * k + 1.4), 12.0)


def _matrix_side(k: int) -> float:
    """Inches for a panel of k x k cells, room for long names included."""
    return min(max(4.4, 0.17 * k + 3.4), 12.0)


def _stacked(k: int) -> bool:
    """Whether the two confusion matrices go one above the other (many classes)."""
    return k > ANNOTATE_UP_TO


# ---------------------------------------------------------------------------- evaluation
def confusion_size(report: dict[str, Any]) -> tuple[float, float]:
    k = len(report["labels"])
    side = _matrix_side(k)
    return (side + 1.0, 2 * side) if _stacked(k) else (2 * side + 1.0, side)


def confusion(report: dict[str, Any], *, figure: Figure | SubFigure | None = None) -> Figure:
    """The confusion matrix of an evaluation report: counts, and normalised by true label.

    ``report`` is what ``model.evaluate`` or ``sqlnb.evaluate`` returns; rows are true
    labels and columns predicted labels, as in scikit-learn.
    """
    labels, matrix = report["labels"], report["confusion_matrix"]
    k = len(labels)
    figure = _new_figure(confusion_size(report)) if figure is None else figure
    axes = figure.subplots(2, 1) if _stacked(k) else figure.subplots(1, 2)
    totals = [sum(row) for row in matrix]
    normalised = [[cell / total if total else 0.0 for cell in row]
                  for row, total in zip(matrix, totals)]
    for ax, values, title, fmt in ((axes[0], matrix, "Confusion matrix: counts", "{:d}"),
                                   (axes[1], normalised, "share of each true label", "{:.2f}")):
        image = ax.imshow(values, cmap="Blues", vmin=0)
        figure.colorbar(image, ax=ax, shrink=0.7)
        _label_axis(ax, "x", labels)
        if ax is axes[0] or _stacked(k):
            _label_axis(ax, "y", labels)
            ax.set_ylabel("true label")
        else:  # side by side, the rows are the first matrix's
            ax.set_yticks(list(range(k)), [])
        ax.set_xlabel("predicted label")
        ax.set_title(title, fontsize=11)
        if k <= ANNOTATE_UP_TO:
            top = max(max(row) for row in values) or 1
            for i, row in enumerate(values):
                for j, value in enumerate(row):
                    ax.text(j, i, fmt.format(value), ha="center", va="center",
                            fontsize=_font(k) - (1.5 if k > 8 else 0),
                            color="white" if value > top / 2 else "black")
    return figure.figure


def reliability(curve: dict[str, Any], *, figure: Figure | SubFigure | None = None) -> Figure:
    """A reliability diagram: mean predicted probability against observed frequency.

    ``curve`` comes from :func:`sqlnb.diagnostics.reliability` (or ``model_reliability``);
    the bars below count the rows in each bin.
    """
    figure = _new_figure((5.0, 5.4)) if figure is None else figure
    ax, counts = figure.subplots(2, 1, height_ratios=[3, 1], sharex=True)
    bins = curve["bins"]
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfectly calibrated")
    ax.plot([b["mean_predicted"] for b in bins], [b["observed"] for b in bins], marker="o",
            label="model")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    if curve["kind"] == "binary":
        ax.set_ylabel(f"fraction of class {short(curve['positive'], 16)}")
        ax.set_title(f"Reliability (class {short(curve['positive'])})", fontsize=11)
    else:
        ax.set_ylabel("fraction predicted right")
        ax.set_title("Reliability (probability of the predicted class)", fontsize=11)
    ax.legend(loc="upper left", fontsize=8)
    counts.bar([b["lower"] for b in bins], [b["n"] for b in bins], width=1 / curve["n_bins"],
               align="edge", color="tab:blue", alpha=0.6, edgecolor="white")
    counts.set_ylabel("rows")
    counts.set_xlabel("mean predicted probability")
    return figure.figure


def evaluation(report: dict[str, Any], curve: dict[str, Any] | None = None) -> Figure:
    """One figure for ``sqlnb evaluate --plot``: the confusion matrices and, when given,
    the reliability diagram, with accuracy and macro F1 in the title."""
    width, height = confusion_size(report)
    extra = 0.0 if curve is None else 5.0
    figure = _new_figure((width + extra, max(height, 5.0) + 0.5))
    if curve is None:
        confusion(report, figure=figure)
    else:
        left, right = figure.subfigures(1, 2, width_ratios=[width, extra])
        confusion(report, figure=left)
        reliability(curve, figure=right)
    loss = "" if report.get("log_loss") is None else f", log loss {report['log_loss']:.4g}"
    figure.suptitle(f"{report['n']} rows: accuracy {report['accuracy']:.4f}, "
                    f"macro F1 {report['macro_f1']:.4f}{loss}")
    return figure


# ---------------------------------------------------------------------------- models
def class_priors(model: NaiveBayes, *, figure: Figure | SubFigure | None = None) -> Figure:
    """The model's class priors, one horizontal bar per class with its training rows."""
    priors = diagnostics.class_priors(model)
    k = len(priors)
    figure = _new_figure((6.0, _bars_height(k))) if figure is None else figure
    ax = figure.subplots()
    ax.barh(list(range(k)), [p["prior"] for p in priors], color="tab:blue")
    _label_axis(ax, "y", [p["class"] for p in priors])
    ax.invert_yaxis()
    ax.set_xlabel("prior probability")
    ax.set_title(f"Class priors of {short(model.name)}", fontsize=11)
    if k <= 20:
        for y, p in enumerate(priors):
            ax.text(p["prior"], y, f" {p['prior']:.3f} ({p['n']} rows)", va="center",
                    fontsize=_font(k) - 1)
        ax.set_xlim(0, max(p["prior"] for p in priors) * 1.5)
    return figure.figure


def _distribution_size(found: dict[str, Any]) -> tuple[float, float]:
    k = len({r["class"] for r in found["rows"]})
    if found["shape"] in ("density", "categories") and k <= CURVES_UP_TO:
        return (6.4, 3.6)
    return (6.4, _bars_height(k))


def feature_distribution(model: NaiveBayes, feature: str, *,
                         figure: Figure | SubFigure | None = None) -> Figure:
    """The fitted distribution of one feature in each class.

    Gaussian: the class densities (mean ± 2 standard deviations past 8 classes);
    categorical: P(category | class) bars (a heatmap past 8 classes); Bernoulli:
    P(feature non-zero | class); Poisson: the rate; multinomial: the feature's share of the
    class's counts; complement: the class weight.
    """
    found = diagnostics.feature_distribution(model, feature)
    figure = _new_figure(_distribution_size(found)) if figure is None else figure
    ax = figure.subplots()
    _draw_distribution(ax, found)
    return figure.figure


def _draw_distribution(ax: Axes, found: dict[str, Any]) -> None:
    rows, family, feature = found["rows"], found["family"], found["feature"]
    shape = found["shape"]
    classes = list(dict.fromkeys(r["class"] for r in rows))
    k = len(classes)
    ax.set_title(f"{short(feature)} ({family}) by class", fontsize=11)
    if shape == "density" and k <= CURVES_UP_TO:
        low = min(r["theta"] - 4 * math.sqrt(r["var"]) for r in rows)
        high = max(r["theta"] + 4 * math.sqrt(r["var"]) for r in rows)
        xs = [low + (high - low) * i / 400 for i in range(401)]
        for r in rows:
            sd = math.sqrt(r["var"])
            ax.plot(xs, [math.exp(-0.5 * ((x - r["theta"]) / sd) ** 2)
                         / (sd * math.sqrt(2 * math.pi)) for x in xs], label=short(r["class"]))
        ax.set_xlabel(short(feature))
        ax.set_ylabel("density")
        ax.legend(title="class", fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    elif shape == "density":
        ax.errorbar([r["theta"] for r in rows], list(range(k)),
                    xerr=[2 * math.sqrt(r["var"]) for r in rows], fmt="o", capsize=2)
        _label_axis(ax, "y", classes)
        ax.invert_yaxis()
        ax.set_xlabel(f"{short(feature)}: mean ± 2 standard deviations")
    elif shape == "categories":
        categories = sorted({r["category"] for r in rows})
        value = {(r["class"], r["category"]): r["probability"] for r in rows}
        if k <= CURVES_UP_TO:
            width = 0.8 / k
            for i, label in enumerate(classes):
                ax.bar([j + (i - (k - 1) / 2) * width for j in range(len(categories))],
                       [value.get((label, c), 0.0) for c in categories], width=width,
                       label=short(label))
            _label_axis(ax, "x", categories)
            ax.set_ylabel(found["label"])
            ax.legend(title="class", fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
        else:
            image = ax.imshow([[value.get((label, c), 0.0) for c in categories]
                               for label in classes], cmap="Blues", vmin=0, aspect="auto")
            ax.figure.colorbar(image, ax=ax, label=found["label"])
            _label_axis(ax, "x", categories)
            _label_axis(ax, "y", classes)
    else:
        key, axis_label = found["value"], found["label"]
        ax.barh(list(range(k)), [r[key] for r in rows], color="tab:blue")
        _label_axis(ax, "y", classes)
        ax.invert_yaxis()
        ax.set_xlabel(axis_label)


def _top_rows(model: NaiveBayes, k: int) -> list[tuple]:
    return model.top_features(k).fetchall()  # (class, rank, feature, category, score)


def _top_size(rows: list[tuple], k: int) -> tuple[float, float]:
    classes = len({r[0] for r in rows})
    if classes <= PANELS_UP_TO:
        columns = min(3, classes)
        return (4.2 * columns, (0.3 * k + 1.3) * math.ceil(classes / columns) + 0.4)
    features = len({(r[2], r[3]) for r in rows})
    return (min(max(6.0, 0.2 * features + 3.5), 16.0), min(max(4.0, 0.2 * classes + 3.0), 14.0))


def top_features(model: NaiveBayes, k: int = 5, *,
                 figure: Figure | SubFigure | None = None) -> Figure:
    """Per class, the ``k`` features that most favour it (``model.top_features(k)``).

    Up to 12 classes: one bar panel per class; more: a heatmap of the scores of every
    feature that is in some class's top ``k``.
    """
    rows = _top_rows(model, k)
    figure = _new_figure(_top_size(rows, k)) if figure is None else figure
    classes = list(dict.fromkeys(r[0] for r in rows))

    def name(row: tuple) -> str:
        return short(row[2] if row[3] is None else f"{row[2]}={row[3]}")

    if len(classes) <= PANELS_UP_TO:
        columns = min(3, len(classes))
        axes = figure.subplots(math.ceil(len(classes) / columns), columns, squeeze=False)
        axes = axes.ravel()
        for ax, label in zip(axes, classes):
            mine = [r for r in rows if r[0] == label]
            ax.barh(list(range(len(mine))), [r[4] for r in mine], color="tab:green")
            _label_axis(ax, "y", [name(r) for r in mine])
            ax.invert_yaxis()
            ax.set_title(f"class {short(label)}", fontsize=10)
            ax.tick_params(axis="x", labelsize=8)
        for ax in axes[len(classes):]:
            ax.set_visible(False)
        figure.supxlabel("score: log-likelihood gain over the other classes", fontsize=9)
    else:
        features = list(dict.fromkeys(name(r) for r in rows))
        score = {(r[0], name(r)): r[4] for r in rows}
        ax = figure.subplots()
        image = ax.imshow([[score.get((c, f), math.nan) for f in features] for c in classes],
                          cmap="Greens", aspect="auto")
        figure.colorbar(image, ax=ax, label="score (blank: not in the class's top)")
        _label_axis(ax, "x", features)
        _label_axis(ax, "y", classes)
    figure.suptitle(f"Top {k} features per class of {short(model.name)}", fontsize=12)
    return figure.figure


def overview(model: NaiveBayes, features: list[str] | None = None, k: int = 5) -> Figure:
    """The figure of ``sqlnb show DB MODEL --plot``: class priors, the distributions of
    ``features`` (by default the first three) and the top ``k`` features per class."""
    names = model.features_[:3] if features is None else features
    found = []
    for name in names:
        try:
            found.append(diagnostics.feature_distribution(model, name))
        except SqlnbError:
            if features is not None:
                raise
    parts: list[tuple[tuple[float, float], Any]] = [
        ((6.4, _bars_height(len(model.classes_))), lambda f: class_priors(model, figure=f))]
    for item in found:
        parts.append((_distribution_size(item),
                      lambda f, item=item: _draw_distribution(f.subplots(), item)))
    rows = _top_rows(model, k)
    parts.append((_top_size(rows, k), lambda f: top_features(model, k, figure=f)))
    width = max(size[0] for size, _ in parts)
    heights = [size[1] for size, _ in parts]
    figure = _new_figure((width, sum(heights)))
    subfigures = figure.subfigures(len(parts), 1, height_ratios=heights, squeeze=False).ravel()
    for subfigure, (_, draw) in zip(subfigures, parts):
        draw(subfigure)
    return figure


# Drift values past which practitioners commonly call a PSI shift moderate or large; the
# plot draws them as reference lines (see docs/explain.md), it does not judge.
PSI_REFERENCES = (0.1, 0.25)


def _value_text(value: Any) -> str:
    """A value as the explanation gives it (text), numbers to four significant digits."""
    if value is None:
        return "NULL"
    try:
        return f"{float(value):.4g}"
    except (TypeError, ValueError):
        return str(value)


def waterfall(found: dict[str, Any], k: int = 10, *,
              figure: Figure | SubFigure | None = None) -> Figure:
    """One row's explanation (:func:`sqlnb.explain.row_breakdown`) as a waterfall: from the
    difference of the log priors of the predicted class and the runner-up, each of the
    ``k`` features with the largest contributions (by size), then the rest together, to
    the difference of the two classes' joint log-likelihoods."""
    features = sorted(found["features"], key=lambda f: -abs(f[2]))
    shown, rest = features[:k], features[k:]
    steps = [("log prior", found["prior"])]
    steps += [(short(f"{name} = {_value_text(value)}"), contribution)
              for name, value, contribution in shown]
    if rest:
        steps.append((f"{len(rest)} other features", math.fsum(c for _, _, c in rest)))
    figure = _new_figure((7.5, 0.38 * (len(steps) + 1) + 1.6)) if figure is None else figure
    ax = figure.subplots()
    start, reached = 0.0, [0.0, found["total"]]
    for i, (_, amount) in enumerate(steps):
        colour = "tab:grey" if i == 0 else ("tab:green" if amount >= 0 else "tab:red")
        ax.barh(i, amount, left=start, color=colour)
        start += amount
        reached.append(start)
    ax.barh(len(steps), found["total"], color="tab:blue")
    margin = 0.05 * ((max(reached) - min(reached)) or 1.0)
    ax.set_xlim(min(reached) - margin, max(reached) + margin)
    _label_axis(ax, "y", [name for name, _ in steps] + ["total"])
    ax.axvline(0, color="black", linewidth=0.8)
    ax.invert_yaxis()
    versus = "" if found["runner_up"] is None else f" over {short(found['runner_up'])}"
    ax.set_xlabel(f"log-likelihood of {short(found['prediction'])}{versus}", fontsize=9)
    figure.suptitle(f"Row {found['row']}: predicted {short(found['prediction'])}", fontsize=12)
    return figure.figure


def drift(rows: list[dict[str, Any]], *, figure: Figure | SubFigure | None = None) -> Figure:
    """``model.drift(source)``'s rows (as dicts) as bars, the largest drift first, one
    colour per method, with the common PSI reference lines (0.1 and 0.25). Only the pooled
    rows are drawn (``by_class``'s per-class rows have a ``class``)."""
    # a feature without values in the batch has no drift (NULL, or NaN from a DataFrame)
    rows = sorted((r for r in rows if r["drift"] is not None and not math.isnan(r["drift"])
                   and r.get("class") is None), key=lambda r: -r["drift"])
    figure = _new_figure((7.0, _bars_height(len(rows)))) if figure is None else figure
    ax = figure.subplots()
    methods = list(dict.fromkeys(r["method"] for r in rows))
    colours = {m: f"C{i}" for i, m in enumerate(methods)}
    finite = [r["drift"] for r in rows if math.isfinite(r["drift"])]
    cap = max(finite + [PSI_REFERENCES[-1] if "psi" in colours else 0.0, 1e-9]) * 1.05
    for i, r in enumerate(rows):
        ax.barh(i, min(r["drift"], cap), color=colours[r["method"]],
                label=r["method"] if r["method"] in methods else None)
        if r["method"] in methods:
            methods.remove(r["method"])
    if "psi" in colours:  # the reference lines belong to PSI's scale only
        for value, style in zip(PSI_REFERENCES, ("--", ":")):
            ax.axvline(value, color="grey", linestyle=style, linewidth=0.9,
                       label=f"PSI {value}")
    _label_axis(ax, "y", [r["feature"] for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("drift (0: the batch matches the model)", fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    figure.suptitle("Drift per feature", fontsize=12)
    return figure.figure
