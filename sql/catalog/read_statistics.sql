-- One statistics table of model {{ model | comment }} ({{ role }}), in its stored row order
-- (so sums over it come out the same in a copy): what a copy of the model (a pickled
-- scikit-learn facade estimator, an exported model) needs to rebuild it.
SELECT *
FROM {{ t[role] }}
ORDER BY rowid
