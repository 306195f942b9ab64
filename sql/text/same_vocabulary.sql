-- The terms (with their idf) that one of two vocabularies has and the other lacks.
SELECT count(*) FROM (
    (SELECT term, idf FROM {{ a.vocabulary }} EXCEPT ALL SELECT term, idf FROM {{ b.vocabulary }})
    UNION ALL
    (SELECT term, idf FROM {{ b.vocabulary }} EXCEPT ALL SELECT term, idf FROM {{ a.vocabulary }})
)
