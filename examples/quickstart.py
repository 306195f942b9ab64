"""Quickstart: fit a naive Bayes model on a Parquet file and score it, all inside DuckDB.

Run it with ``python examples/quickstart.py``. It writes its data to a temporary folder.
"""

import tempfile
from pathlib import Path

import duckdb

import sqlnb

workdir = Path(tempfile.mkdtemp(prefix="sqlnb-quickstart-"))
train, scored = workdir / "flowers.parquet", workdir / "scored.parquet"

con = duckdb.connect()  # in-memory; pass duckdb.connect("models.duckdb") to keep the model

# 30,000 generated flowers of three species, written to Parquet by DuckDB itself.
con.execute(f"""
    COPY (
        SELECT
            ['setosa', 'versicolor', 'virginica'][1 + i % 3] AS species,
            5.0 + 0.6 * (i % 3) + 0.4 * sqrt(-2 * ln(random())) * cos(2 * pi() * random()) AS sepal_length,
            3.4 - 0.3 * (i % 3) + 0.3 * sqrt(-2 * ln(random())) * cos(2 * pi() * random()) AS sepal_width,
            1.5 + 2.2 * (i % 3) + 0.5 * sqrt(-2 * ln(random())) * cos(2 * pi() * random()) AS petal_length,
            0.2 + 0.9 * (i % 3) + 0.2 * sqrt(-2 * ln(random())) * cos(2 * pi() * random()) AS petal_width
        FROM range(30000) AS t(i)
    ) TO '{train}' (FORMAT parquet)
""")

# Fit: one scan of the Parquet file; the model is a set of tables in `con`.
model = sqlnb.NaiveBayes("flowers", con=con, family="gaussian").fit(str(train), "species")
print(model)
print("classes:", model.classes_)
print(con.sql("SELECT class, feature, round(theta, 3) AS theta, round(var, 3) AS var "
              "FROM flowers_feature_params ORDER BY class, feature LIMIT 4"))

# Predict: Parquet in, Parquet out. The result is a lazy DuckDB relation; the rows never
# pass through Python.
model.predict(str(train)).write_parquet(str(scored))
print(con.sql(f"""
    SELECT round(avg(CAST(prediction = species AS DOUBLE)), 4) AS training_accuracy,
           count(*) AS rows
    FROM read_parquet('{scored}')
"""))

# Probabilities, one column per class.
print(model.predict_proba(str(train)).limit(3))
