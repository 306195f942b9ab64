-- Number of terms in the vocabulary.
SELECT count(*) FROM {{ t.vocabulary }}
