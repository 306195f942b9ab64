-- One statistics table of model {{ model | lit }} ({{ role }}), in key order: what a copy
-- of the model (a pickled scikit-learn estimator, an exported model) needs to rebuild it.
SELECT *
FROM {{ t[role] }}
ORDER BY ALL
