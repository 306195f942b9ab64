"""Run the sqlnb benchmarks: ``python benchmarks/run.py --scale small|medium|full``.

Generates the data under ``benchmarks/data/`` (kept between runs), runs the cases and
writes ``benchmarks/RESULTS.md`` and ``benchmarks/scaling.png``. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the cases import each other by plain module name
    sys.path.insert(0, str(HERE))

import cases
import common
import report as report_module


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=list(cases.SCALES), default="small",
                        help="data sizes: tiny (seconds), small (a minute), medium, "
                             "full (the reference sizes, up to 50M rows)")
    parser.add_argument("--cases", nargs="+", choices=list(cases.CASES),
                        default=list(cases.CASES), help="run only these cases")
    parser.add_argument("--repeats", type=int, default=None,
                        help="runs per step (default: the scale's, 3)")
    parser.add_argument("--output", type=Path, default=HERE,
                        help="where RESULTS.md and scaling.png go (default: benchmarks/)")
    parser.add_argument("--data", type=Path, default=common.DATA_DIR,
                        help="where the generated data goes (default: benchmarks/data/)")
    args = parser.parse_args(argv)

    scale = cases.SCALES[args.scale]
    if args.repeats is not None:
        scale.repeats = args.repeats
    machine = common.machine()
    result = cases.Report(scale=scale, data_dir=args.data)
    args.output.mkdir(parents=True, exist_ok=True)
    for name in args.cases:
        start = time.perf_counter()
        print(f"[{time.strftime('%H:%M:%S')}] {name}...", flush=True)
        cases.CASES[name](result)
        print(f"    done in {time.perf_counter() - start:.0f} s", flush=True)
        out = write(result, machine, args.output)  # after every case: a long run can be cut
    print(f"wrote {out}", flush=True)
    return out


def write(result: cases.Report, machine: dict[str, str], output: Path) -> Path:
    """Write RESULTS.md (and scaling.png, width.png), then the files of benchmarks/results/
    appended."""
    plot = report_module.plot(result, output / "scaling.png")
    width_plot = report_module.plot_width(result, output / "width.png")
    extra = sorted((HERE / "results").glob("*.md"))
    out = output / "RESULTS.md"
    out.write_text(report_module.markdown(result, machine, plot, extra, width_plot))
    return out


if __name__ == "__main__":
    main()
