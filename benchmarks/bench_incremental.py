"""Out-of-core fitting: peak memory and time of sqlnb against scikit-learn's partial_fit loop.

Generates a Parquet dataset with DuckDB (one file per chunk of rows, 20 Gaussian features,
3 classes), then runs, each in its own subprocess so that peak RSS is measured per run:

* ``sqlnb-fit``          -- ``NaiveBayes.fit`` on the whole Parquet glob (one scan);
* ``sqlnb-partial``      -- ``NaiveBayes.partial_fit`` once per file (one transaction each);
* ``sqlnb-one-file``     -- ``fit`` on the first file only: the fixed memory cost;
* ``sklearn-partial``    -- scikit-learn's ``GaussianNB.partial_fit`` over the same files,
  read with pyarrow one row group at a time (the usual out-of-core loop).

Usage::

    python benchmarks/bench_incremental.py --rows 50000000
    python benchmarks/bench_incremental.py --rows 5000000 --runs sqlnb-fit,sklearn-partial

Results are printed and written to ``benchmarks/results/incremental.md`` (use ``--output``).
Peak RSS is the child's ``ru_maxrss`` reported by ``os.wait4``.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
N_FEATURES = 20
N_CLASSES = 3


def data_dir(rows: int) -> Path:
    return HERE / "data" / f"incremental_{rows}"


def generate(rows: int, rows_per_file: int) -> Path:
    """Write the dataset with DuckDB's COPY (skipped when it is already there)."""
    import duckdb

    out = data_dir(rows)
    done = out / "_complete"
    if done.exists():
        return out
    out.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    # x_j = class-dependent mean + a standard normal draw (Box-Muller on two uniforms)
    columns = ",\n".join(
        f"  (y * {0.25 * (j % 5 + 1)} + {j}.0) + sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS x{j}"
        for j in range(N_FEATURES)
    )
    n_files = -(-rows // rows_per_file)
    for k in range(n_files):
        lo, hi = k * rows_per_file, min(rows, (k + 1) * rows_per_file)
        path = out / f"part-{k:04d}.parquet"
        query = (
            "COPY (SELECT y,\n" + columns + "\nFROM (SELECT CAST(hash(range) % "
            f"{N_CLASSES} AS BIGINT) AS y FROM range({lo}, {hi}))) TO '{path}' (FORMAT parquet)"
        )
        con.execute(query)
    done.write_text(json.dumps({"rows": rows, "files": n_files}))
    return out


def peak_rss_mib(usage) -> float:
    # ru_maxrss is KiB on Linux, bytes on macOS
    return usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)


def run_child(kind: str, directory: Path, extra: list[str]) -> dict:
    """Run one measurement in a fresh interpreter; return its timings and peak RSS."""
    command = [sys.executable, __file__, "--child", kind, "--dir", str(directory), *extra]
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    output = proc.stdout.read()
    proc.stdout.close()
    if status != 0:
        raise SystemExit(f"{kind} failed with status {status}: {output}")
    result = json.loads(output.strip().splitlines()[-1])
    result.update(kind=kind, wall_s=wall, peak_rss_mib=peak_rss_mib(usage))
    return result


# ---------------------------------------------------------------------- children
def child_sqlnb(directory: Path, incremental: bool, threads: int | None,
                memory_limit: str | None, baseline: bool = False) -> dict:
    import duckdb

    import sqlnb

    con = duckdb.connect()
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    if memory_limit:
        con.execute(f"SET memory_limit = '{memory_limit}'")
    model = sqlnb.NaiveBayes("bench", con=con, family="gaussian")
    start = time.perf_counter()
    if baseline:  # the fixed cost: interpreter, imports, DuckDB, one fit of the first file
        model.fit(min(glob.glob(str(directory / "*.parquet"))), "y")
    elif incremental:
        for path in sorted(glob.glob(str(directory / "*.parquet"))):
            model.partial_fit(path, "y")
    else:
        model.fit(str(directory / "*.parquet"), "y")
    seconds = time.perf_counter() - start
    theta = con.execute(
        "SELECT class, feature, theta, var FROM bench_feature_params ORDER BY class, feature"
    ).fetchall()
    return {"fit_s": seconds, "params": [[r[0], r[1], r[2], r[3]] for r in theta]}


def child_sklearn(directory: Path) -> dict:
    import numpy as np
    import pyarrow.parquet as pq
    from sklearn.naive_bayes import GaussianNB

    model = GaussianNB()
    classes = np.arange(N_CLASSES)
    names = [f"x{j}" for j in range(N_FEATURES)]
    start = time.perf_counter()
    for path in sorted(glob.glob(str(directory / "*.parquet"))):
        file = pq.ParquetFile(path)
        for group in range(file.num_row_groups):
            table = file.read_row_group(group, columns=["y", *names])
            X = np.column_stack([table.column(n).to_numpy() for n in names])
            y = table.column("y").to_numpy()
            model.partial_fit(X, y, classes=classes)
    seconds = time.perf_counter() - start
    return {"fit_s": seconds, "theta": model.theta_.tolist(), "var": model.var_.tolist()}


# ---------------------------------------------------------------------- accuracy
def accuracy(rows: int = 20_000, batches: int = 10) -> list[tuple[str, str, float, float, float]]:
    """Largest relative difference of every derived parameter, per family and weighting:
    ``partial_fit`` over batches vs ``fit`` on all; ``fit(A+B)`` then ``forget(A)`` vs
    ``fit(B)``; ``merge`` of per-batch models vs ``fit`` on all."""
    import duckdb
    import numpy as np
    import pyarrow as pa

    import sqlnb

    def relative(con, left, right):
        worst = 0.0
        for view in ("feature_params", "class_params"):
            a = con.execute(f'SELECT * FROM "{left}_{view}" ORDER BY ALL').fetchall()
            b = con.execute(f'SELECT * FROM "{right}_{view}" ORDER BY ALL').fetchall()
            for ra, rb in zip(a, b, strict=True):
                for u, v in zip(ra, rb):
                    if isinstance(u, float) and u != v:
                        worst = max(worst, abs(u - v) / max(abs(v), 1e-300))
        return worst

    out = []
    for family in ("gaussian", "multinomial", "complement", "bernoulli", "categorical"):
        for weight in (None, "w"):
            con = duckdb.connect()
            rng = np.random.default_rng(0)
            y = rng.integers(0, 4, rows)
            if family == "gaussian":
                x = rng.normal(10.0, 3.0, (rows, 5)) + y[:, None]
            else:
                x = rng.integers(0, 8, (rows, 5))
            table = {f"x{j}": x[:, j] for j in range(5)}
            table.update(y=y, w=rng.uniform(0.1, 3.0, rows), part=np.arange(rows) % batches)
            con.register("frame", pa.table(table))
            con.execute("CREATE TABLE data AS SELECT * FROM frame")
            features = [f"x{j}" for j in range(5)]
            for k in range(batches):
                con.execute(f"CREATE TABLE part{k} AS SELECT * FROM data WHERE part = {k}")
            con.execute("CREATE TABLE rest AS SELECT * FROM data WHERE part > 0")

            def model(name, con=con, family=family):
                return sqlnb.NaiveBayes(name, con=con, family=family)

            model("whole").fit("data", "y", features=features, weight=weight)
            inc = model("inc")
            for k in range(batches):
                inc.partial_fit(f"part{k}", "y", features=features, weight=weight)
                model(f"shard{k}").fit(f"part{k}", "y", features=features, weight=weight)
            model("forgot").fit("data", "y", features=features, weight=weight).forget(
                "part0", "y", features=features, weight=weight)
            model("rest").fit("rest", "y", features=features, weight=weight)
            sqlnb.merge(con, [f"shard{k}" for k in range(batches)], into="merged")
            out.append((family, "weighted" if weight else "unweighted",
                        relative(con, "inc", "whole"), relative(con, "forgot", "rest"),
                        relative(con, "merged", "whole")))
    return out


# ---------------------------------------------------------------------- report
def machine() -> dict:
    import duckdb
    import numpy
    import sklearn

    import sqlnb

    memory, cpu = None, platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        with open("/proc/meminfo") as f:
            memory = f"{int(f.readline().split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": memory,
        "python": platform.python_version(),
        "duckdb": duckdb.__version__,
        "scikit-learn": sklearn.__version__,
        "numpy": numpy.__version__,
        "sqlnb": sqlnb.__version__,
        "os": platform.platform(),
    }


def compare(sqlnb_result: dict, sklearn_result: dict) -> float:
    """Largest relative difference of theta between sqlnb and scikit-learn."""
    worst = 0.0
    for cls, feature, theta, _ in sqlnb_result["params"]:
        other = sklearn_result["theta"][cls][int(feature[1:])]
        worst = max(worst, abs(theta - other) / max(abs(other), 1e-300))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--rows-per-file", type=int, default=1_000_000)
    parser.add_argument("--runs", default="sqlnb-fit,sqlnb-partial,sklearn-partial")
    parser.add_argument("--threads", type=int, default=None, help="DuckDB threads")
    parser.add_argument("--memory-limit", default=None, help="DuckDB memory_limit, e.g. 1GB")
    parser.add_argument("--output", default=str(HERE / "results" / "incremental.md"))
    parser.add_argument("--accuracy", action="store_true",
                        help="measure incremental/forget/merge against fit and exit")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        directory = Path(args.dir)
        if args.child == "sklearn-partial":
            result = child_sklearn(directory)
        else:
            result = child_sqlnb(directory, args.child == "sqlnb-partial", args.threads,
                                 args.memory_limit, baseline=args.child == "sqlnb-one-file")
        print(json.dumps(result))
        return

    if args.accuracy:
        lines = [
            "### Incremental, forget and merge against the batch fit",
            "",
            "Largest relative difference over every derived parameter (log priors, means,",
            "variances, log probabilities), 20,000 rows in 10 batches, 5 features, 4 classes.",
            "",
            ("| family | weights | partial_fit x10 vs fit | fit then forget vs fit(rest) "
             "| merge of 10 shards vs fit |"),
            "|---|---|---:|---:|---:|",
        ]
        for family, weighting, inc, forgot, merged in accuracy():
            lines.append(f"| {family} | {weighting} | {inc:.1e} | {forgot:.1e} | {merged:.1e} |")
        text = "\n".join(lines) + "\n"
        print(text)
        with open(args.output, "a") as f:
            f.write(text + "\n")
        return

    start = time.perf_counter()
    directory = generate(args.rows, args.rows_per_file)
    generated_s = time.perf_counter() - start
    size = sum(p.stat().st_size for p in directory.glob("*.parquet"))
    print(f"data: {args.rows:,} rows x {N_FEATURES} features, "
          f"{size / 2**30:.2f} GiB of Parquet in {directory} ({generated_s:.0f} s)", flush=True)
    extra = []
    if args.threads:
        extra += ["--threads", str(args.threads)]
    if args.memory_limit:
        extra += ["--memory-limit", args.memory_limit]
    results = {}
    for kind in args.runs.split(","):
        results[kind] = run_child(kind, directory, extra)
        r = results[kind]
        print(f"{kind:16s} fit {r['fit_s']:8.1f} s   wall {r['wall_s']:8.1f} s   "
              f"peak RSS {r['peak_rss_mib']:8.1f} MiB", flush=True)
    agreement = None
    if "sqlnb-fit" in results and "sklearn-partial" in results:
        agreement = compare(results["sqlnb-fit"], results["sklearn-partial"])
        print(f"max relative difference of theta vs scikit-learn: {agreement:.2e}")
    write_report(args, results, size, machine(), agreement)


def write_report(args, results: dict, size: int, info: dict, agreement: float | None) -> None:
    lines = [
        (f"### Out-of-core fitting, {args.rows:,} rows x {N_FEATURES} features "
         f"({size / 2**30:.2f} GiB Parquet, {-(-args.rows // args.rows_per_file)} files)"),
        "",
        "| run | fit time (s) | process wall time (s) | peak RSS (MiB) |",
        "|---|---:|---:|---:|",
    ]
    labels = {
        "sqlnb-one-file": "sqlnb `fit` on the first file only (fixed cost)",
        "sqlnb-fit": "sqlnb `fit` on the Parquet glob (one scan)",
        "sqlnb-partial": "sqlnb `partial_fit`, one call per file",
        "sklearn-partial": "scikit-learn `GaussianNB.partial_fit` per row group (pyarrow)",
    }
    for kind, r in results.items():
        lines.append(f"| {labels.get(kind, kind)} | {r['fit_s']:.1f} | {r['wall_s']:.1f} | "
                     f"{r['peak_rss_mib']:.0f} |")
    if agreement is not None:
        lines += ["", (f"Largest relative difference of `theta_` between sqlnb's fit and "
                       f"scikit-learn's partial_fit loop: {agreement:.1e}.")]
    settings = f"threads={args.threads or 'default'}, memory_limit={args.memory_limit or 'default'}"
    lines += ["", f"DuckDB settings: {settings}. Machine: "
              + ", ".join(f"{k} {v}" for k, v in info.items()) + ".", ""]
    text = "\n".join(lines)
    print(text)
    path = Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
