-- The version of model {{ model | comment }}: every write rewrites its metadata row and the
-- time of that write, so cached parameters are fresh while this value is unchanged.
SELECT fitted_at FROM {{ t.meta }}
