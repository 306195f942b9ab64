"""Writing the results: RESULTS.md (tables, ratios, targets, machine) and the scaling plot."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

from cases import Report

MIB = 1024**2


def _seconds(value: float) -> str:
    if math.isnan(value):
        return "-"
    if value < 0.01:
        return f"{value * 1000:.3f} ms"
    return f"{value:.3f} s"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def markdown(report: Report, machine: dict[str, str], plot: Path | None,
             extra: list[Path], width_plot: Path | None = None) -> str:
    """The whole results file as Markdown."""
    s = report.scale
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# sqlnb benchmark results",
        "",
        (f"Scale **{s.name}**, generated {now} by `python benchmarks/run.py --scale {s.name}`. "
        f"Times are medians of {s.repeats} runs (each run in a fresh process, the steps of a "
        "case interleaved round by round, so a noisy machine slows them alike); ratios "
        "divide medians measured side by side in the same run. Peak RSS is the high-water "
        "mark of the process that ran the step, setup included."),
        "",
        "## Machine",
        "",
    ]
    lines += [f"- **{key}**: {value}" for key, value in machine.items()]
    lines += ["", "## Targets", ""]
    lines += _table(["target", "measured", "goal", "met"],
                    [[t.name, t.measured, t.goal,
                      "-" if t.met is None else ("yes" if t.met else "**no**")]
                     for t in report.targets])
    lines += ["", "## Ratios", ""]
    lines += _table(["case", "ratio", "value"],
                    [[case, text, f"{value:.2f}x"] for case, text, value in report.ratios])
    lines += ["", "## Measurements", ""]
    case = None
    for row in report.rows:
        if row.case != case:
            if case is not None:
                lines.append("")
            case = row.case
            lines += [f"### {case}", ""]
            lines += _table(["step", "median", "runs", "peak RSS"], [])
        m = row.measurement
        runs = ", ".join(_seconds(x) for x in m.seconds) or "-"
        rss = "-" if not m.peak_rss else f"{m.median_rss / MIB:,.0f} MiB"
        median = "failed" if m.error and not m.seconds else _seconds(m.median)
        lines.append(f"| {row.step} | {median} | {runs} | {rss} |")
    if report.scaling:
        lines += ["", "## Scaling", ""]
        if plot is not None:
            lines += [f"![scaling curves]({plot.name})", ""]
        for sweep, series in report.scaling.items():
            labels = list(dict.fromkeys(label for _, label, _ in series))
            xs = list(dict.fromkeys(x for x, _, _ in series))
            values = {(x, label): v for x, label, v in series}
            lines += [f"By {sweep}:", ""]
            lines += _table([sweep, *labels],
                            [[f"{x:,}", *(_seconds(values[(x, label)]) for label in labels)]
                             for x in xs])
            lines.append("")
    if report.width:
        lines += ["", "## Width sweep", ""]
        if width_plot is not None:
            lines += [f"![time and planning vs width]({width_plot.name})", ""]
        labels = list(dict.fromkeys(label for _, label, _ in report.width))
        values = {(x, label): v for x, label, v in report.width}
        lines += [(f"Models of n features x 5 classes, scoring {report.scale.width_rows:,} "
                   "rows; `to_sql` is the size of the model's standalone scoring statement."),
                  ""]
        lines += _table(["features", "`to_sql` size", *labels],
                        [[f"{x:,}", f"{report.width_sql.get(x, 0) / 1024:,.0f} KiB",
                          *(_seconds(values[(x, label)]) for label in labels)]
                         for x in dict.fromkeys(x for x, _, _ in report.width)])
    if report.notes:
        lines += ["", "## Not measured, skipped or failed", ""]
        lines += [f"- {note}" for note in report.notes]
    for path in extra:
        lines += ["", f"<!-- appended from benchmarks/results/{path.name} -->", "",
                  path.read_text().rstrip()]
    return "\n".join(lines).rstrip() + "\n"


def plot(report: Report, path: Path) -> Path | None:
    """Log-log scaling curves, one panel per sweep; None when there is nothing to draw."""
    if not report.scaling:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(report.scaling), figsize=(5 * len(report.scaling), 4))
    if len(report.scaling) == 1:
        axes = [axes]
    for ax, (sweep, series) in zip(axes, report.scaling.items()):
        for label in dict.fromkeys(label for _, label, _ in series):
            points = [(x, v) for x, lab, v in series if lab == label and not math.isnan(v)]
            ax.plot([x for x, _ in points], [v for _, v in points], marker="o", label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(sweep)
        ax.set_ylabel("seconds (median)")
        ax.set_title(f"time vs {sweep}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    figure.suptitle(f"sqlnb scaling (scale {report.scale.name})")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def plot_width(report: Report, path: Path) -> Path | None:
    """Time and planning time vs the model's width (log-x); None when not measured."""
    if not report.width:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    figure, (times, size) = plt.subplots(1, 2, figsize=(11, 4))
    for label in dict.fromkeys(label for _, label, _ in report.width):
        points = [(x, v) for x, lab, v in report.width if lab == label and not math.isnan(v)]
        times.plot([x for x, _ in points], [v for _, v in points], marker="o", label=label)
    times.set_yscale("log")
    times.set_ylabel("seconds (median)")
    times.set_title(f"scoring {report.scale.width_rows:,} rows vs features (5 classes)")
    widths = sorted(report.width_sql)
    size.plot(widths, [report.width_sql[x] / 1024 for x in widths], marker="o")
    size.set_yscale("log")
    size.set_ylabel("KiB")
    size.set_title("size of the standalone scoring statement (to_sql)")
    for ax in (times, size):
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ticker.ScalarFormatter())
        ax.set_xlabel("features")
        ax.grid(True, which="both", alpha=0.3)
    times.legend(fontsize="small")
    figure.suptitle(f"sqlnb scoring vs model width (scale {report.scale.name})")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
