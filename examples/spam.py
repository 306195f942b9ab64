"""Spam filtering from a text column in Parquet, with no Python-side vectoriser.

The script makes its own small corpus of e-mails (no downloads), writes it to Parquet,
fits a multinomial naive Bayes model on the text column inside DuckDB (tokens, counts,
vocabulary in SQL), scores a held-out Parquet file into another Parquet file and prints
the accuracy and the words that weigh most for each class.

    python examples/spam.py
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import duckdb

import sqlnb
from sqlnb.text import top_terms

SPAM_WORDS = ["free", "winner", "prize", "cash", "offer", "click", "urgent", "credit",
              "cheap", "bonus", "guaranteed", "limited", "deal", "viagra", "lottery"]
HAM_WORDS = ["meeting", "report", "lunch", "project", "schedule", "review", "thanks",
             "team", "agenda", "notes", "tomorrow", "draft", "budget", "call", "family"]
COMMON = ["the", "a", "you", "and", "to", "for", "is", "on", "your", "this", "we", "it",
          "please", "today", "now", "all", "new", "time", "get", "here"]


def make_mail(rng: random.Random, spam: bool) -> str:
    own, other = (SPAM_WORDS, HAM_WORDS) if spam else (HAM_WORDS, SPAM_WORDS)
    words = []
    for _ in range(rng.randint(5, 25)):
        pick = rng.random()
        pool = own if pick < 0.45 else COMMON if pick < 0.92 else other
        words.append(rng.choice(pool))
    text = " ".join(words)
    if spam and rng.random() < 0.5:
        text = text.upper() + "!!!"  # lowercase=True folds the shouting back
    return text.capitalize() + "."


def write_corpus(path: Path, n: int, seed: int) -> None:
    rng = random.Random(seed)
    labels = ["spam" if rng.random() < 0.4 else "ham" for _ in range(n)]
    rows = [(i, make_mail(rng, label == "spam"), label) for i, label in enumerate(labels)]
    con = duckdb.connect()
    con.execute("CREATE TABLE mail (id INTEGER, body VARCHAR, label VARCHAR)")
    con.executemany("INSERT INTO mail VALUES (?, ?, ?)", rows)
    con.execute("COPY mail TO ? (FORMAT parquet)", [str(path)])
    con.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        train, test, scored = (Path(tmp) / name for name in
                               ("train.parquet", "test.parquet", "scored.parquet"))
        write_corpus(train, 5000, seed=1)
        write_corpus(test, 1000, seed=2)

        con = duckdb.connect()
        model = sqlnb.NaiveBayes("spam_filter", con=con, family="multinomial", alpha=0.5)
        # Analyzer options have scikit-learn's CountVectorizer names and defaults.
        model.fit(str(train), "label", text="body", ngram_range=(1, 2),
                  stop_words="english", min_df=2)
        model.predict(str(test)).write_parquet(str(scored))

        accuracy = con.execute(
            "SELECT avg(CAST(prediction = label AS DOUBLE)) FROM read_parquet(?)",
            [str(scored)],
        ).fetchall()[0][0]
        vocabulary = con.execute("SELECT count(*) FROM spam_filter_vocabulary").fetchall()[0][0]
        print(f"vocabulary: {vocabulary} terms; held-out accuracy: {accuracy:.3f}")
        print("\nmost telling terms per class (log P(term | class)):")
        for label, term, coef in top_terms(model, 8).fetchall():
            print(f"  {label:5} {term:20} {coef:8.3f}")
        print("\nthree scored e-mails:")
        for row in con.execute(
            "SELECT body, label, prediction FROM read_parquet(?) LIMIT 3", [str(scored)]
        ).fetchall():
            print("  ", row)


if __name__ == "__main__":
    main()
