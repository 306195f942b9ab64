-- How model {{ model | comment }} reads its input (the caller checks first that the table
-- exists: a failed read would abort an open transaction).
SELECT input, options, n_documents FROM {{ t.analyzer }}
