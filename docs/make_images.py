"""Regenerate the images of docs/cli.md and docs/explain.md (run from the repository root, needs 'sqlnb[cli]').

    python docs/make_images.py

Every figure is drawn by sqlnb.plot from SQL aggregates over data made here by DuckDB.
"""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb
from PIL import Image

import sqlnb
import sqlnb.explain
import sqlnb.plot

HERE = Path(__file__).resolve().parent / "images"
DPI = 72  # small files; the 50-class figures use LARGE_DPI so their labels stay legible
LARGE_DPI = 80

# Three plans of a subscription service, with long class names on purpose.
CUSTOMERS = """
CREATE OR REPLACE TABLE customers AS
WITH base AS (
    SELECT i, i % 3 AS k, random() AS u1, random() AS u2, random() AS u3, random() AS u4
    FROM range(3000) r(i)
)
SELECT
    ['stays on the same plan', 'churns within a month', 'downgrades to the free tier'][k + 1]
        AS outcome,
    20 + 15 * k + 6 * sqrt(-2 * ln(u1)) * cos(2 * pi() * u2) AS monthly_spend,
    3 * (2 - k) + 2.5 * sqrt(-2 * ln(u1)) * sin(2 * pi() * u2) AS tenure_years,
    CASE WHEN u3 < 0.2 + 0.25 * k THEN 'monthly' WHEN u3 < 0.8 THEN 'yearly' ELSE 'two-year' END
        AS contract,
    u4 < 0.7 - 0.2 * k AS autopay
FROM base
"""

# Fifty classes whose means overlap: a readability test for the layouts.
MANY = """
CREATE OR REPLACE TABLE many AS
SELECT
    'species number ' || (i % 50) || CASE WHEN i % 50 % 7 = 0 THEN ' (subspecies aurantiaca)'
                                        ELSE '' END AS label,
    (i % 50) / 5.0 + 2 * sqrt(-2 * ln(random())) * cos(2 * pi() * random()) AS length,
    (i % 50) % 7 + sqrt(-2 * ln(random())) * cos(2 * pi() * random()) AS width,
    (i % 50) % 11 / 3.0 + sqrt(-2 * ln(random())) * cos(2 * pi() * random()) AS depth
FROM range(20000) r(i)
"""


def main() -> int:
    HERE.mkdir(exist_ok=True)
    con = duckdb.connect()
    con.execute("SELECT setseed(0.25)")
    con.execute(CUSTOMERS)
    con.execute(MANY)
    saved = []

    def save(figure, name: str) -> None:
        figure.savefig(HERE / name, dpi=LARGE_DPI if "50" in name else DPI)
        # a palette of 128 colours keeps the committed files small (Pillow comes with
        # matplotlib)
        with Image.open(HERE / name) as image:
            small = image.convert("RGB").quantize(colors=128)
        small.save(HERE / name, optimize=True)
        saved.append(name)

    churn = sqlnb.NaiveBayes("churn", con=con, family="gaussian")
    churn.fit("customers", "outcome", features=["monthly_spend", "tenure_years"])
    report = churn.evaluate("customers")
    save(sqlnb.plot.evaluation(report, sqlnb.diagnostics.model_reliability(churn, "customers")),
         "evaluate.png")
    save(sqlnb.plot.overview(churn), "show.png")

    mixed = sqlnb.NaiveBayes("churn_mixed", con=con, family="auto").fit("customers", "outcome")
    save(sqlnb.plot.feature_distribution(mixed, "contract"), "categorical.png")

    rows = con.sql("SELECT * EXCLUDE (outcome) FROM customers")
    save(sqlnb.plot.waterfall(sqlnb.explain.row_breakdown(mixed, rows, 7)), "explain.png")
    moved = con.sql("SELECT * REPLACE (monthly_spend + 8 AS monthly_spend, CASE WHEN "
                    "contract = 'two-year' THEN 'monthly' ELSE contract END AS contract) "
                    "FROM customers")
    save(sqlnb.plot.drift(mixed.drift(moved).df().to_dict("records")), "drift.png")

    binary = con.sql("SELECT * REPLACE (outcome = 'churns within a month' AS outcome) "
                     "FROM customers")
    churned = sqlnb.NaiveBayes("churned", con=con, family="auto").fit(binary, "outcome")
    save(sqlnb.plot.reliability(sqlnb.diagnostics.model_reliability(churned, binary)),
         "reliability-binary.png")

    many = sqlnb.NaiveBayes("many", con=con).fit("many", "label")
    save(sqlnb.plot.evaluation(many.evaluate("many"),
                               sqlnb.diagnostics.model_reliability(many, "many")),
         "evaluate-50-classes.png")
    save(sqlnb.plot.overview(many, features=["length"], k=3), "show-50-classes.png")
    print("wrote", ", ".join(saved), "in", HERE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
