"""A naive Bayes model of an ordinary business table, fitted straight from Parquet.

The table mixes floats, integers, strings, booleans and gaps (NULL and NaN); nothing is
encoded by hand. ``family="auto"`` picks a distribution per column from its type, one
column is declared a count (Poisson), and missing values are left out of the likelihood.

Run:  python examples/mixed_table.py
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import sqlnb


def make_customers(n: int, seed: int = 7) -> pa.Table:
    """Customers who churned or stayed, with some cells missing."""
    rng = np.random.default_rng(seed)
    churn = rng.random(n) < 0.3
    plan = np.where(churn, rng.choice(["basic", "basic", "plus"], n),
                    rng.choice(["basic", "plus", "pro"], n))
    region = rng.choice(["north", "south", "east", "west"], n)
    monthly_spend = np.where(churn, rng.normal(28, 9, n), rng.normal(45, 12, n))
    tenure_years = np.where(churn, rng.gamma(1.5, 1.0, n), rng.gamma(3.0, 1.2, n))
    support_calls = rng.poisson(np.where(churn, 3.5, 1.0))
    autopay = rng.random(n) < np.where(churn, 0.35, 0.7)
    # gaps: unknown region, spend not recorded (NaN), autopay unknown, label not yet known
    tenure_years[rng.random(n) < 0.05] = np.nan
    label = np.where(churn, "churned", "stayed").astype(object)
    label[rng.random(n) < 0.02] = None
    return pa.table({
        "customer": pa.array(np.arange(n)),
        "plan": pa.array(plan),
        "region": pa.array(region, mask=rng.random(n) < 0.1),
        "monthly_spend": pa.array(monthly_spend, mask=rng.random(n) < 0.05),
        "tenure_years": pa.array(tenure_years),
        "support_calls": pa.array(support_calls),
        "autopay": pa.array(autopay, mask=rng.random(n) < 0.08),
        "status": pa.array(label),
    })


def main(n_train: int = 20_000) -> None:
    with tempfile.TemporaryDirectory(prefix="sqlnb_mixed_") as folder:
        run(Path(folder), n_train)


def run(folder: Path, n_train: int) -> None:
    train, test = folder / "customers.parquet", folder / "new_customers.parquet"
    pq.write_table(make_customers(n_train), train)
    pq.write_table(make_customers(8, seed=99).drop(["status"]), test)

    con = duckdb.connect()
    print("Training table (Parquet):")
    for name, sql_type, *_ in con.sql(f"DESCRIBE SELECT * FROM read_parquet('{train}')").fetchall():
        print(f"  {name:15s} {sql_type}")

    model = sqlnb.NaiveBayes(
        "churn",
        con=con,
        family="auto",
        families={"support_calls": "poisson"},  # a count, not a Gaussian measurement
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(str(train), "status",
                  features=["plan", "region", "monthly_spend", "tenure_years",
                            "support_calls", "autopay"])
    for w in caught:
        print("warning:", w.message)

    print("\nFamily of each column:")
    for column, family in model.families_.items():
        print(f"  {column:15s} {family}")

    print("\nStatistics tables:", sorted(r[0] for r in con.sql("SHOW TABLES").fetchall()
                                         if r[0].startswith("churn_")))

    print("\nPredictions for new customers (NULL/NaN cells are left out of the likelihood;")
    print("the plan 'platinum' was never seen and gets the smoothed unseen probability):")
    con.execute(f"CREATE TABLE new_customers AS SELECT * FROM read_parquet('{test}')")
    con.execute("UPDATE new_customers SET plan = 'platinum' WHERE customer = 0")
    con.execute("UPDATE new_customers SET region = NULL, tenure_years = 'nan' WHERE customer = 3")
    rows = model.predict_proba("new_customers").order("customer").fetchall()
    columns = model.predict_proba("new_customers").columns
    print("  " + " | ".join(columns))
    for row in rows:
        print("  " + " | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in row))
    print("\nPredicted labels:",
          model.predict("new_customers").order("customer").select("customer, prediction")
          .fetchall())


if __name__ == "__main__":
    main()
