-- The labelled documents of a source (only the target column is read).
SELECT count(*) AS n_documents
FROM {{ source }}
WHERE {{ target }} IS NOT NULL
