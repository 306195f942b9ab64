"""A text model's ``<name>_explain`` macro: reading the model's tables against inlining the
vocabulary, side by side in one run.

A DuckDB table of ``--docs`` documents of 30 words over a ``--terms``-word vocabulary (3
classes) is made in memory and a multinomial text model fitted on it. Interleaved, medians
of ``--repeats``: rendering and creating each macro (what every write pays), calling each
over the documents (the rows counted), ``explain`` and the inlined ``to_sql`` statement,
and a ``partial_fit`` of 1,000 documents (which re-creates the model's macros) for scale.

    python benchmarks/bench_text_explain.py                  # 50,000 docs, 50,000 terms
    python benchmarks/bench_text_explain.py --docs 5000 --repeats 1
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import duckdb

import sqlnb
from sqlnb import compiler


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=50_000)
    parser.add_argument("--terms", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE docs AS SELECT i % 3 AS label, (SELECT string_agg('w' || "
        f"((i * 7919 + j * 104729) % {args.terms}), ' ') FROM range(30) r(j)) AS body "
        f"FROM range({args.docs}) t(i)")
    model = sqlnb.NaiveBayes("tx", con=con, family="multinomial").fit("docs", "label",
                                                                        text="body")
    context = model.context

    def create(name: str, inlined: bool) -> None:
        body = compiler.text_explain_sql(context, "query_table(relation)", inlined=inlined)
        con.execute(f"CREATE OR REPLACE MACRO {name}(relation) AS TABLE {body}")

    def count(sql: str) -> None:
        con.sql(f"SELECT count(*) FROM ({sql})").fetchall()

    create("inlined_explain", True)
    cases = {
        "create the macro, reading the tables": lambda: create("tables_explain", False),
        "create the macro, vocabulary inlined": lambda: create("inlined_explain", True),
        "call the macro reading the tables": lambda: count("FROM tx_explain('docs')"),
        "call the macro with the vocabulary inlined":
            lambda: count("FROM inlined_explain('docs')"),
        "explain()": lambda: model.explain("docs").count("*").fetchall(),
        "to_sql(output='explain') (rendered and run)":
            lambda: count(model.to_sql("docs", output="explain")),
        "partial_fit of 1,000 documents": lambda: model.partial_fit(
            con.sql("SELECT * FROM docs LIMIT 1000"), "label", text="body"),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.repeats):
        for name, run in cases.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    print(f"{args.docs} documents, {args.terms} terms, DuckDB {duckdb.__version__}, "
          f"{platform.machine()} x {os.cpu_count()}, load {os.getloadavg()[0]:.1f}, "
          f"medians of {args.repeats}\n")
    print("| step | time |\n|---|---|")
    for name, runs in times.items():
        print(f"| {name} | {statistics.median(runs) * 1000:.1f} ms |")


if __name__ == "__main__":
    main()
