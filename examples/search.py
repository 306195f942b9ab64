"""Choose alpha by 5-fold cross-validation without leaving DuckDB.

Run it with ``python examples/search.py``. It writes a small Parquet file of generated
word counts to a temporary folder, searches alpha in two scans of that file, and refits the
model with the best value; then it searches a text column's alpha and n-gram range.
"""

import tempfile
from pathlib import Path

import duckdb

import sqlnb

workdir = Path(tempfile.mkdtemp(prefix="sqlnb-search-"))
reviews = workdir / "reviews.parquet"

con = duckdb.connect()  # in-memory; the source stays a Parquet file, read in place

# 20,000 reviews as counts of 6 words, written by DuckDB; "good" and "great" lean positive.
con.execute(f"""
    COPY (
        SELECT
            CASE WHEN i % 5 < 3 THEN 'positive' ELSE 'negative' END AS sentiment,
            CAST(floor(random() * (CASE WHEN i % 5 < 3 THEN 4 ELSE 2 END)) AS INTEGER) AS good,
            CAST(floor(random() * (CASE WHEN i % 5 < 3 THEN 3 ELSE 1.5 END)) AS INTEGER) AS great,
            CAST(floor(random() * (CASE WHEN i % 5 < 3 THEN 1.5 ELSE 3 END)) AS INTEGER) AS bad,
            CAST(floor(random() * 3) AS INTEGER) AS movie,
            CAST(floor(random() * 2) AS INTEGER) AS plot,
            CAST(floor(random() * (CASE WHEN i % 5 < 3 THEN 1 ELSE 2.5 END)) AS INTEGER) AS boring
        FROM range(20000) AS t(i)
    ) TO '{reviews}' (FORMAT parquet)
""")

model = sqlnb.NaiveBayes("reviews", con=con, family="multinomial")

# One scan for every fold's statistics, one scan to score every row with its own fold's
# held-out model for all six candidates; then a refit on all rows with the best alpha.
search = model.search(
    str(reviews), "sentiment",
    param_grid={"alpha": [0.01, 0.1, 0.5, 1.0, 2.0, 10.0]},
    cv=5,  # folds from a hash of each row; or the name of a column of fold ids
    scoring=["neg_log_loss", "accuracy", "f1_macro"],  # the first one picks the best
)

print(search.cv_results_.select(
    "param_alpha, round(mean_test_neg_log_loss, 5) AS log_loss, "
    "round(std_test_neg_log_loss, 5) AS std, rank_test_neg_log_loss AS rank, "
    "round(mean_test_accuracy, 4) AS accuracy"))
print("best:", search.best_params_, "score:", round(search.best_score_, 5))

# The model is fitted with the best alpha, as GridSearchCV's best_estimator_.
print(model, model.predict(str(reviews)).limit(3).fetchall())

# Text: the same search over a column of short reviews, each fold with its own vocabulary
# (as GridSearchCV refits CountVectorizer on every training set); the grid may vary the
# text options too, at two scans per distinct way of counting terms.
texts = workdir / "texts.parquet"
con.execute(f"""
    COPY (
        SELECT
            CASE WHEN i % 5 < 3 THEN 'positive' ELSE 'negative' END AS sentiment,
            concat_ws(' ',
                      CASE WHEN (i % 5 < 3) = (random() < 0.8) THEN 'good' ELSE 'boring' END,
                      ['movie', 'plot', 'great', 'bad', 'acting'][1 + CAST(random() * 5 AS INTEGER) % 5],
                      CASE WHEN random() < 0.3 + 0.3 * (i % 5 < 3)::INTEGER THEN 'not bad'
                           ELSE 'the end' END,
                      'scene' || CAST(floor(random() * 40) AS INTEGER)) AS review
        FROM range(2000) AS t(i)
    ) TO '{texts}' (FORMAT parquet)
""")
text_model = sqlnb.NaiveBayes("review_words", con=con, family="multinomial")
text_search = text_model.search(
    str(texts), "sentiment", text="review", stop_words=["the"],
    param_grid={"alpha": [0.1, 1.0], "ngram_range": [(1, 1), (1, 2)]}, cv=5)
print(text_search.cv_results_.select("params, round(mean_test_score, 4) AS accuracy"))
print("best:", text_search.best_params_)
