"""Pieces of the scoring compiler shared by predict, per-group models, macros and ``to_sql``.

A class's joint log-likelihood is a constant plus one term per feature; long sums are split
into chunks (DuckDB plans long ``+`` chains slowly), and text that goes into a SQL comment
is kept on one line and cannot open or close a block comment.

>>> [len(chunk["terms"]) for chunk in with_chunks({"constant": 0.0, "terms": list(range(120))})["chunks"]]
[50, 50, 20]
"""

from __future__ import annotations

from typing import Any

from .dialect import DUCKDB, Dialect

# Terms summed in one flat chain; longer sums are split into chunks. DuckDB's planner slows
# down sharply on long chains of `+` (its common-subexpression pass dominates) and refuses
# depth > 1000. Measured (50k rows x 200 features x 5 classes, Gaussian predict): one chain
# 5.8 s, a balanced tree 2.3 s, chunks of 50 terms 1.4 s.
CHUNK_TERMS = 50


def with_chunks(model: dict[str, Any]) -> dict[str, Any]:
    """``model`` (a constant and scoring terms) with ``chunks``: the same sum split into
    pieces of at most ``CHUNK_TERMS`` terms, the constant in the first. A model of up to
    ``CHUNK_TERMS`` features has one chunk: the same expression as ``predict``'s."""
    if model.get("parts"):  # a mixed model sums its parts; each part is one chunk of terms
        return {**model, "chunks": [model]}
    terms = model["terms"]
    chunks = [{"constant": model["constant"] if i == 0 else 0.0,
               "terms": terms[i:i + CHUNK_TERMS]}
              for i in range(0, max(len(terms), 1), CHUNK_TERMS)]
    return {**model, "chunks": chunks}


def comment_text(text: str, dialect: Dialect = DUCKDB) -> str:
    """``text`` made safe for a SQL comment (see ``Dialect.comment``)."""
    return dialect.comment(text)
