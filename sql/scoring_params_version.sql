-- Which model versions the scoring parameter table of {{ model | comment }} holds (one, the
-- version of the write that rewrote it).
SELECT DISTINCT fitted_at FROM {{ t.scoring_params }}
