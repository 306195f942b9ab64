"""Grow a model day by day, forget one day's rows, and merge shards fitted elsewhere.

Run with ``python examples/incremental.py``; it writes a few small Parquet files into a
temporary directory and prints what each step did.
"""

import os
import tempfile

import duckdb

import sqlnb

workdir = tempfile.mkdtemp()
con = duckdb.connect()


def day(name: str, seed: int, rows: int = 1000) -> str:
    """One day of data as a Parquet file: a label and two numeric features."""
    path = os.path.join(workdir, f"{name}.parquet")
    con.execute(f"SELECT setseed({seed / 100})")
    con.execute(
        "COPY (SELECT range % 3 AS label, "
        "(range % 3) * 2.0 + random() AS width, "
        "(range % 3) - random() AS height "
        f"FROM range({rows})) TO '{path}' (FORMAT parquet)"
    )
    return path


monday, tuesday, wednesday = day("monday", 1), day("tuesday", 2), day("wednesday", 3)

# 1. partial_fit: each call scans one file and upserts its statistics into the model.
model = sqlnb.NaiveBayes("daily", con=con)
for path in (monday, tuesday, wednesday):
    model.partial_fit(path, "label")
print("classes after three days:", model.classes_)

# ... and it is the same model as one fit on the three days together.
whole = sqlnb.NaiveBayes("whole", con=con).fit([monday, tuesday, wednesday], "label")
difference = con.execute("""
    SELECT max(abs(d.var - w.var) / w.var)
    FROM daily_feature_params AS d JOIN whole_feature_params AS w USING (class, feature)
""").fetchone()[0]
print(f"largest relative difference from the batch fit: {difference:.1e}")

# 2. forget: a deletion request for Tuesday's rows, without refitting.
model.forget(tuesday, "label")
rows = con.execute("SELECT sum(n) FROM daily_class_stats").fetchone()[0]
print("training rows after forgetting Tuesday:", rows)

# 3. merge: models fitted on different shards (here: separate database files).
for name, path in (("shard_a", monday), ("shard_b", wednesday)):
    with duckdb.connect(os.path.join(workdir, f"{name}.duckdb")) as shard:
        sqlnb.NaiveBayes("m", con=shard).fit(path, "label")
con.execute(f"ATTACH '{os.path.join(workdir, 'shard_a.duckdb')}' AS shard_a (READ_ONLY)")
con.execute(f"ATTACH '{os.path.join(workdir, 'shard_b.duckdb')}' AS shard_b (READ_ONLY)")
merged = sqlnb.merge(con, ["shard_a.m", "shard_b.m"], into="merged")
same = con.execute("""
    SELECT max(abs(m.theta - d.theta) / abs(d.theta))
    FROM merged_feature_params AS m JOIN daily_feature_params AS d USING (class, feature)
""").fetchone()[0]
print(f"merged shards vs. the daily model without Tuesday: {same:.1e}")
