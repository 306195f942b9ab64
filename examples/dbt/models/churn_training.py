"""Train the sqlnb model `churn` from ref('customers'), one day of data at a time.

An incremental dbt model: its table is the ledger of the days the model has learned. On
the first run (and with --full-refresh) it fits the model on every day; on later runs it
folds only the days the ledger does not have yet into the model with partial_fit, which
gives the same model as a fit on all the days. The model's statistics tables and scoring
macros (churn_predict, churn_predict_proba, ...) live in this database, beside dbt's.
"""

import sqlnb

MODEL = "churn"
TARGET = "churned"
FEATURES = ["tenure_months", "monthly_spend", "support_calls"]


def model(dbt, session):
    dbt.config(materialized="incremental", unique_key="day")

    # `session` is dbt's wrapper of its DuckDB connection; sqlnb takes a DuckDB connection,
    # and gets a cursor of it: the same database, with transactions of its own.
    con = session.cursor()
    training = dbt.ref("customers").filter("NOT holdout")
    if dbt.is_incremental:
        [(learned,)] = con.sql(f"SELECT coalesce(max(day), 0) FROM {dbt.this}").fetchall()
        batch = training.filter(f"day > {int(learned)}")
        [(new_rows,)] = batch.aggregate("count(*)").fetchall()
        if new_rows:
            sqlnb.load(con, MODEL).partial_fit(batch, TARGET)
    else:
        batch = training
        nb = sqlnb.NaiveBayes(MODEL, con=con, family="gaussian")
        nb.fit(batch, TARGET, features=FEATURES)

    return batch.aggregate(
        "day, count(*) AS rows_learned, now()::TIMESTAMP AS learned_at", "day"
    )
