-- The merged vocabulary of model {{ model | comment }} (see merge_models.sql), numbered in
-- sorted order as CountVectorizer numbers its terms.
INSERT INTO {{ t.vocabulary }} (term, term_index, df, count, idf)
SELECT term, CAST(row_number() OVER (ORDER BY term) - 1 AS INTEGER), df, count, idf
FROM {{ t.terms }};
