"""A model used from plain SQL: macros, standalone scoring SQL, a fit script, metrics.

Run: python examples/sql_usage.py
"""

from __future__ import annotations

import os
import tempfile

import duckdb
import numpy as np

import sqlnb

workdir = tempfile.mkdtemp()
database = os.path.join(workdir, "models.duckdb")
rng = np.random.default_rng(0)
n = 1000
churned = rng.random(n) < 0.3
customers = {
    "id": np.arange(n),
    "store": rng.integers(0, 4, n),
    "tenure": np.where(churned, rng.normal(8, 4, n), rng.normal(30, 10, n)),
    "spend": np.where(churned, rng.normal(40, 15, n), rng.normal(55, 15, n)),
    "churned": np.where(churned, "yes", "no"),
}

con = duckdb.connect(database)
con.execute("CREATE TABLE customers AS SELECT * FROM customers")
con.execute(f"COPY customers TO '{workdir}/new.parquet' (FORMAT parquet)")
model = sqlnb.NaiveBayes("churn", con=con).fit("customers", "churned",
                                               features=["tenure", "spend"])
print(model.evaluate("customers")["accuracy"])
print(model.top_features(1).fetchall())
script = model.fit_sql("customers", "churned", features=["tenure", "spend"])
# One model per store, fitted in the same scan, and a pooled model for new stores:
stores = sqlnb.NaiveBayes("churn_by_store", con=con).fit(
    "customers", "churned", features=["tenure", "spend"], group_by="store")
print(stores.evaluate("customers")["accuracy"])
scoring = model.to_sql(f"read_parquet('{workdir}/new.parquet')", output="predict_proba")
con.close()

# What a user with the duckdb CLI (no sqlnb) can run against the same file:
plain = duckdb.connect(database)
print(plain.sql("SELECT id, churn_predict(t) AS prediction FROM customers t LIMIT 3"))
print(plain.sql(f"SELECT churn_predict(p), churn_predict_proba(p).yes "
                f"FROM read_parquet('{workdir}/new.parquet') p LIMIT 3"))
print(plain.sql("SELECT c.id, unnest(churn_predict_proba(c)) FROM customers c LIMIT 3"))
print(plain.sql("SELECT * FROM churn_score('customers') LIMIT 3"))
print(plain.sql("SELECT class, feature, theta, var FROM churn_feature_params ORDER BY ALL"))
print(plain.sql("SELECT store, churn_by_store_predict(t) AS prediction, count(*) "
                "FROM customers t GROUP BY ALL ORDER BY ALL LIMIT 4"))
plain.close()

# The standalone statement needs no sqlnb table at all:
print(duckdb.connect().sql(scoring).limit(3))
# The fit script rebuilds the model in a database that only has the data:
other = duckdb.connect()
other.execute(f"CREATE TABLE customers AS SELECT * FROM read_parquet('{workdir}/new.parquet')")
other.execute(script)
print(other.sql("SELECT * FROM churn_class_params"))
