-- How model {{ model | lit }} reads its input (fails when it is not a term model).
SELECT input, options, n_documents FROM {{ t.analyzer }}
