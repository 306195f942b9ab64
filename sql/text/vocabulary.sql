-- The vocabulary, as CountVectorizer builds it: terms whose document frequency is within
-- [min_df, max_df], then the max_features most frequent ones (ties: alphabetical),
-- numbered in sorted order, with their idf.
{% import 'text/analyzer.sql' as analyzer %}
INSERT INTO {{ t.vocabulary }} (term, term_index, df, count, idf)
WITH totals AS (
    SELECT term, sum(docs) AS df, sum(count) AS count
    FROM {{ t.terms }}
    GROUP BY term
), kept AS (
    SELECT term, df, count
    FROM totals
    WHERE df IS NULL OR (df >= {{ min_count | lit }} AND df <= {{ max_count | lit }})
{% if max_features is not none %}
    ORDER BY {% if a.binary %}df{% else %}count{% endif %} DESC, term
    LIMIT {{ max_features | lit }}
{% endif %}
)
SELECT
    term,
    CAST(row_number() OVER (ORDER BY term) - 1 AS INTEGER) AS term_index,
    df,
    count,
    {{ analyzer.idf('df', n_documents, a) }} AS idf
FROM kept;
