"""Text classification end to end: raw-text Parquet -> fitted model -> predictions in Parquet.

sqlnb (tokenising, counting and scoring in DuckDB) against the scikit-learn pipeline
(pandas reads Parquet, CountVectorizer, MultinomialNB, predict, pandas writes Parquet),
side by side in one run. Each pipeline runs in its own process so its peak memory is its
own. The corpus is generated here (no downloads) from a synthetic vocabulary: every topic
prefers its own Zipf-like slice of the words.

    python benchmarks/bench_text.py                      # 250k train + 100k test documents
    python benchmarks/bench_text.py --docs 20000 --test-docs 5000 --no-write
    python benchmarks/bench_text.py --vocabulary 1200000 --only sqlnb   # vocabulary scale

Prints a Markdown table; ``--write`` (the default) also writes benchmarks/results/text.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"


def generate(path: Path, n_docs: int, vocabulary: int, seed: int, topics: int = 4) -> None:
    """Write a corpus of ``n_docs`` documents (columns id, body, topic) to Parquet."""
    import duckdb
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    lengths = rng.integers(3, 10, vocabulary)
    words = {"".join(rng.choice(letters, n)) + str(i % 7 or "") for i, n in enumerate(lengths)}
    words = sorted(words)
    con = duckdb.connect()
    con.execute(f"SET threads = {os.cpu_count()}")
    word_table = pa.table({"word": words, "id": np.arange(1, len(words) + 1)})
    con.register("word_table", word_table)
    con.execute("CREATE TABLE words AS SELECT * FROM word_table")
    n_words = len(words)
    # Each topic draws word ids with a power law around its own offset; a shared head of
    # frequent words (ids near 0) stands for the stop words every topic uses.
    con.execute(f"SELECT setseed({seed / 1e6})")
    con.execute(
        f"""
        COPY (
            WITH docs AS (
                SELECT range AS id, CAST(range % {topics} AS INTEGER) AS topic,
                       CAST(20 + floor(random() * 180) AS INTEGER) AS length
                FROM range({n_docs})
            ), tokens AS (
                SELECT id, topic, position,
                       CASE WHEN random() < 0.3
                            THEN 1 + CAST(floor(pow(random(), 4) * 300) AS BIGINT)
                            ELSE 1 + CAST((topic * {n_words // topics}
                                 + floor(pow(random(), 3) * {n_words})) % {n_words} AS BIGINT)
                       END AS word_id
                FROM docs, LATERAL (SELECT unnest(range(length)) AS position)
            )
            SELECT t.id, string_agg(w.word, ' ' ORDER BY t.position) AS body,
                   'topic_' || any_value(t.topic) AS topic
            FROM tokens AS t JOIN words AS w ON w.id = t.word_id
            GROUP BY t.id
            ORDER BY t.id
        ) TO '{path}' (FORMAT parquet)
        """
    )


def run_sqlnb(train: str, test: str, out: str) -> dict:
    import duckdb

    import sqlnb

    timings = {}
    start = time.perf_counter()
    con = duckdb.connect()
    model = sqlnb.NaiveBayes("topics", con=con, family="multinomial")
    model.fit(train, "topic", text="body")
    timings["fit"] = time.perf_counter() - start
    model.predict(test).select("id", "prediction").write_parquet(out)
    timings["total"] = time.perf_counter() - start
    timings["predict"] = timings["total"] - timings["fit"]
    timings["vocabulary"] = con.execute("SELECT count(*) FROM topics_vocabulary").fetchall()[0][0]
    return timings


def run_sklearn(train: str, test: str, out: str) -> dict:
    import pandas as pd
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    timings = {}
    start = time.perf_counter()
    frame = pd.read_parquet(train)
    vectorizer = CountVectorizer()
    X = vectorizer.fit_transform(frame["body"])
    nb = MultinomialNB().fit(X, frame["topic"])
    timings["fit"] = time.perf_counter() - start
    test_frame = pd.read_parquet(test, columns=["id", "body"])
    prediction = nb.predict(vectorizer.transform(test_frame["body"]))
    pd.DataFrame({"id": test_frame["id"], "prediction": prediction}).to_parquet(out)
    timings["total"] = time.perf_counter() - start
    timings["predict"] = timings["total"] - timings["fit"]
    timings["vocabulary"] = len(vectorizer.vocabulary_)
    return timings


def child(which: str, train: str, test: str, out: str) -> None:
    timings = (run_sqlnb if which == "sqlnb" else run_sklearn)(train, test, out)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    # VmHWM is this process's own peak (ru_maxrss would include the parent's before exec)
    with open("/proc/self/status") as f:
        peak_kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM"))
    timings["peak_rss_mb"] = peak_kb / 1024
    timings["cpu"] = usage.ru_utime + usage.ru_stime  # all threads, imports included
    print(json.dumps(timings))


def measure(which: str, train: Path, test: Path, out: Path) -> dict:
    result = subprocess.run(
        [sys.executable, __file__, "--child", which, str(train), str(test), str(out)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def agreement(a: Path, b: Path) -> tuple[int, int]:
    import duckdb

    row = duckdb.sql(
        f"SELECT count(*) FILTER (WHERE x.prediction = y.prediction), count(*) "
        f"FROM read_parquet('{a}') AS x JOIN read_parquet('{b}') AS y USING (id)"
    ).fetchall()[0]
    return int(row[0]), int(row[1])


def machine() -> str:
    import duckdb
    import sklearn

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, Python "
            f"{platform.python_version()}, DuckDB {duckdb.__version__}, scikit-learn "
            f"{sklearn.__version__}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=250_000)
    parser.add_argument("--test-docs", type=int, default=100_000)
    parser.add_argument("--vocabulary", type=int, default=60_000)
    parser.add_argument("--only", choices=["sqlnb", "sklearn"])
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each pipeline, interleaved; the fastest is reported")
    parser.add_argument("--no-write", dest="write", action="store_false")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    DATA.mkdir(exist_ok=True)
    tag = f"{args.docs}_{args.vocabulary}"
    train = DATA / f"text_train_{tag}.parquet"
    test = DATA / f"text_test_{args.test_docs}_{args.vocabulary}.parquet"
    start = time.perf_counter()
    if not train.exists():
        generate(train, args.docs, args.vocabulary, seed=1)
    if not test.exists():
        generate(test, args.test_docs, args.vocabulary, seed=2)
    print(f"corpus ready in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    size_mb = (train.stat().st_size + test.stat().st_size) / 2**20

    # The machine may be shared: runs are interleaved and each pipeline's fastest counts.
    load = os.getloadavg()[0]
    results: dict[str, dict] = {}
    paired = []  # sklearn / sqlnb end to end, run by run
    for _ in range(args.repeat):
        totals = {}
        for which in ("sqlnb", "sklearn"):
            if args.only and which != args.only:
                continue
            run = measure(which, train, test, DATA / f"text_pred_{which}.parquet")
            print(which, run, file=sys.stderr)
            totals[which] = run["total"]
            if which not in results or run["total"] < results[which]["total"]:
                results[which] = run
        if len(totals) == 2:
            paired.append(totals["sklearn"] / totals["sqlnb"])

    lines = [
        (f"### Text classification: {args.docs:,} training + {args.test_docs:,} test "
         f"documents, {args.vocabulary:,}-word synthetic vocabulary"),
        "",
        (f"Raw-text Parquet ({size_mb:.0f} MiB) -> CountVectorizer-equivalent counts -> "
         "MultinomialNB -> predictions written to Parquet. Each pipeline in its own process; "
         f"fastest of {args.repeat} interleaved runs; load average {load:.1f} at the start."),
        "",
        ("| pipeline | fit (s) | predict + write (s) | end to end (s) | CPU (s) | "
         "peak RSS (MiB) | vocabulary |"),
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for which, r in results.items():
        lines.append(f"| {which} | {r['fit']:.1f} | {r['predict']:.1f} | {r['total']:.1f} | "
                     f"{r['cpu']:.1f} | {r['peak_rss_mb']:.0f} | {r['vocabulary']:,} |")
    if len(results) == 2:
        same, total = agreement(DATA / "text_pred_sqlnb.parquet",
                                DATA / "text_pred_sklearn.parquet")
        ratio = results["sklearn"]["total"] / results["sqlnb"]["total"]
        lines += ["", (f"sqlnb is **{ratio:.1f}x** faster end to end (fastest against fastest; "
                       f"run by run: {', '.join(f'{r:.1f}x' for r in paired)}); the "
                       f"predictions agree on {same:,} of {total:,} test documents.")]
    lines += ["", f"Machine: {machine()}.", ""]
    text = "\n".join(lines)
    print(text)
    if args.write:
        (HERE / "results").mkdir(exist_ok=True)
        with open(HERE / "results" / "text.md", "a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
