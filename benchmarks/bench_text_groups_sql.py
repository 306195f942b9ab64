"""A per-group text model's plain-SQL scoring, side by side in one run: ``predict``, the
row macro ``<name>_predict(t)``, the table macro ``<name>_score(relation)``, ``to_sql``'s
statement (every group's vocabulary inlined), ``explain`` against the ``<name>_explain``
macro and ``to_sql(output="explain")``, and what every write adds (re-creating the
macros) next to a ``partial_fit`` of 500 documents; then export and import.

A DuckDB table of ``--docs`` documents of 20 words over a ``--terms``-word vocabulary,
``--groups`` groups and 3 classes is made in memory and a multinomial per-group text model
fitted on it. Interleaved, medians of ``--repeats``.

    python benchmarks/bench_text_groups_sql.py                  # 10,000 docs, 10 groups
    python benchmarks/bench_text_groups_sql.py --docs 2000 --repeats 1
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time

import duckdb

import sqlnb


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--terms", type=int, default=2_000)
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    con = duckdb.connect()
    con.execute(
        f"CREATE TABLE docs AS SELECT i % 3 AS label, 'g' || (i % {args.groups}) AS shop, "
        "(SELECT string_agg('w' || ((i * 7919 + j * 104729 + (i % 3) * j) % "
        f"{args.terms}), ' ') FROM range(20) r(j)) AS body FROM range({args.docs}) t(i)")
    model = sqlnb.NaiveBayes("gt", con=con, family="multinomial").fit(
        "docs", "label", text="body", group_by="shop")
    folder = tempfile.mkdtemp()

    def count(sql: str) -> None:
        con.sql(f"SELECT count(*) FROM ({sql})").fetchall()

    cases = {
        "predict()": lambda: model.predict("docs").count("*").fetchall(),
        "gt_predict(t) over the table": lambda: count("SELECT gt_predict(t) FROM docs t"),
        "gt_score('docs')": lambda: count("FROM gt_score('docs')"),
        "to_sql() (rendered and run)": lambda: count(model.to_sql("docs")),
        "explain()": lambda: model.explain("docs").count("*").fetchall(),
        "gt_explain('docs')": lambda: count("FROM gt_explain('docs')"),
        "to_sql(output='explain') (rendered and run)":
            lambda: count(model.to_sql("docs", output="explain")),
        "create_macros() (what every write adds)": model.create_macros,
        "partial_fit of 500 documents": lambda: model.partial_fit(
            con.sql("SELECT * FROM docs LIMIT 500"), "label", text="body"),
        "export": lambda: model.export(folder + "/gt", overwrite=True),
        "import_model (with its macros)": lambda: sqlnb.import_model(
            duckdb.connect(), folder + "/gt"),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.repeats):
        for name, run in cases.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    print(f"{args.docs} documents, {args.terms} terms, {args.groups} groups, DuckDB "
          f"{duckdb.__version__}, {platform.machine()} x {os.cpu_count()}, load "
          f"{os.getloadavg()[0]:.1f}, medians of {args.repeats}\n")
    print("| step | time |\n|---|---|")
    for name, runs in times.items():
        print(f"| {name} | {statistics.median(runs) * 1000:.1f} ms |")


if __name__ == "__main__":
    main()
