"""Model exchange with scikit-learn: a fitted scikit-learn estimator becomes a sqlnb model
(scored from SQL, grown with partial_fit), and a sqlnb model becomes an estimator again.

Run it with ``python examples/sklearn_exchange.py`` (needs scikit-learn and pandas).
"""

import pickle

import duckdb
import numpy as np
import pandas as pd
from sklearn.datasets import load_iris
from sklearn.naive_bayes import GaussianNB

import sqlnb
import sqlnb.sklearn

iris = load_iris(as_frame=True)
X = iris.data.rename(columns=lambda c: c.replace(" (cm)", "").replace(" ", "_"))
y = iris.target_names[iris.target]

# 1. A scikit-learn estimator, fitted in Python as usual ...
estimator = GaussianNB().fit(X, y)

# 2. ... stored as statistics tables in a database (a file would work the same way).
con = duckdb.connect()
model = sqlnb.from_sklearn(estimator, con=con, name="iris")
print("features:", model.features_, "classes:", model.classes_)

# 3. Scored from plain SQL by the macros the model created; same answers as scikit-learn.
con.register("flowers", X)
in_sql = [row[0] for row in con.sql("SELECT iris_predict(f) FROM flowers f").fetchall()]
assert in_sql == estimator.predict(X).tolist()
print(model.to_sql("flowers")[:300], "...")

# 4. Grown with more rows, in the database: the same as scikit-learn's partial_fit.
more = X.sample(50, random_state=0)
model.partial_fit(more.assign(target=y[more.index]), "target")

# 5. And back: a plain fitted sklearn.naive_bayes.GaussianNB, equal to the grown model.
back = model.to_sklearn()
assert type(back) is GaussianNB
proba = model.predict_proba(X).fetchnumpy()
in_db = np.column_stack([proba[f"proba_{c}"] for c in model.classes_])
assert np.allclose(back.predict_proba(X), in_db, rtol=0, atol=1e-9)
print("class counts after growing:", dict(zip(back.classes_.tolist(), back.class_count_.tolist())))

# 6. The sqlnb.sklearn estimators pickle too: their state is the statistics tables.
ours = sqlnb.sklearn.GaussianNB().fit(X, y)
copy = pickle.loads(pickle.dumps(ours))
assert (copy.predict(X) == ours.predict(X)).all()
assert np.allclose(copy.predict_proba(X), ours.predict_proba(X), rtol=0, atol=1e-12)
print("pickled round trip: same statistics and predictions;", len(pickle.dumps(ours)), "bytes")
print(pd.Series(copy.predict(X)).value_counts().to_dict())
