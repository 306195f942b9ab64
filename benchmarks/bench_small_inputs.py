"""Small inputs on several DuckDB releases (and code versions), side by side in one run.

Runs ``bench_fitscan.py --cases tiny small_batches`` and ``bench_latency.py`` in a
process per (Python environment, code directory), the combinations in turn for a few
rounds, so a change of the machine's load touches them alike; prints one table of the
medians of the rounds' figures (each figure itself a median of its run), with the load
and versions. Usage::

    python benchmarks/bench_small_inputs.py --python latest=/path/venv/bin/python \\
        --python lowest=/path/venv-low/bin/python --code after=. [--code before=DIR] \\
        --rounds 2 --output benchmarks/results/small-inputs.md

``--code`` names a directory holding a ``sqlnb`` package (put first on ``PYTHONPATH``);
the benchmark scripts are always this directory's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (label, where in the JSON of a run, goal) of each row of the table
ROWS = [
    ("tiny fit, 1,000 x 20 Arrow (sql_macros=False), ms", ("tiny", "fit_ms"), "<= 20 ms"),
    ("tiny fit: statements", ("tiny", "statements"), ""),
    ("scikit-learn GaussianNB.fit of the same, ms", ("tiny", "sklearn_ms"), ""),
    ("40 partial_fit of 2,000 x 20 / INSERT loop", ("small_batches", "ratio"), "<= 5x"),
    ("partial_fit loop, s", ("small_batches", "partial_fit_s"), ""),
    ("INSERT loop, s", ("small_batches", "insert_s"), ""),
    ("partial_fit: statements per call", ("small_batches", "statements"), ""),
    ("all 1,797 digits rows: predict / reading them",
     ("ratios", "all rows: predict / floor"), "<= 3x"),
    ("one row: NaiveBayes.predict / SELECT * of the row",
     ("ratios", "one row: predict / floor"), "<= 3x"),
    ("one row: sklearn facade / the same", ("ratios", "one row: facade / floor"), "<= 3x"),
    ("one row: SQL macro / SELECT * of the row as a table",
     ("ratios", "one row: macro / table floor"), "<= 3x"),
    ("one row: floor (SELECT * of the Arrow row), ms",
     ("ms", "one row: floor, SELECT * of the Arrow row"), ""),
]


def run(python: str, code: Path, args: list[str]) -> dict:
    """One benchmark process; its last output line is JSON."""
    env = {**os.environ, "PYTHONPATH": f"{code}{os.pathsep}{HERE}"}
    done = subprocess.run([python, *args], env=env, capture_output=True, text=True,
                          check=True, cwd=HERE.parent)
    text = done.stdout.strip()
    start = text.rfind("\n{") + 1 if not text.startswith("{") else 0
    if args[0].endswith("bench_fitscan.py"):
        return json.loads(text.splitlines()[-1])
    return json.loads(text[start:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", required=True,
                        help="label=path of a Python with DuckDB (several)")
    parser.add_argument("--code", action="append", default=None,
                        help="label=directory holding the sqlnb package (default: this one)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3, help="bench_fitscan's --repeats")
    parser.add_argument("--calls", type=int, default=30, help="bench_latency's --calls")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    pythons = [p.split("=", 1) for p in args.python]
    codes = [c.split("=", 1) for c in (args.code or [f"this={HERE.parent}"])]
    combos = [(f"{c} / {p}", py, Path(d).resolve()) for c, d in codes for p, py in pythons]
    results: dict[str, list[dict]] = {name: [] for name, _, _ in combos}
    versions: dict[str, str] = {}
    loads = [os.getloadavg()[0]]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for _ in range(args.rounds):
        for name, python, code in combos:
            fit = run(python, code, [str(HERE / "bench_fitscan.py"), "--cases", "tiny",
                                     "small_batches", "--repeats", str(args.repeats), "--json"])
            latency = run(python, code, [str(HERE / "bench_latency.py"),
                                         "--calls", str(args.calls)])
            versions[name] = fit["duckdb"]
            results[name].append({**fit, **latency})
            loads.append(os.getloadavg()[0])
            print(f"[{time.strftime('%H:%M:%S')}] {name} done", file=sys.stderr, flush=True)

    def cell(name: str, where: tuple[str, str]) -> str:
        values = [r[where[0]][where[1]] for r in results[name]]
        median = statistics.median(values)
        spread = f" ({min(values):.3g}-{max(values):.3g})" if len(values) > 1 else ""
        return f"{median:.3g}{spread}"

    names = [name for name, _, _ in combos]
    header = [f"{name} (DuckDB {versions[name]})" for name in names]
    lines = [(f"{started}, {args.rounds} rounds, {os.cpu_count()} cores, Python "
              f"{sys.version.split()[0]}; 1-minute load {min(loads):.1f}-{max(loads):.1f} "
              f"(`uptime` at start and after each process)"), "",
             "| figure (median of the rounds; their range) | " + " | ".join(header) + " | goal |",
             "|---|" + "---|" * len(names) + "---|"]
    for label, where, goal in ROWS:
        lines.append(f"| {label} | " + " | ".join(cell(n, where) for n in names) + f" | {goal} |")
    text = "\n".join(lines)
    print(text)
    if args.output:
        with open(args.output, "a") as f:
            f.write(text + "\n\n")


if __name__ == "__main__":
    main()
