-- The fitted parameters that scoring compiles into one expression per class.
-- per class: log prior - 0.5 * sum over features of log(2 pi var)
SELECT c.class_index, any_value(c.log_prior) - 0.5 * sum(ln(2 * pi() * p.var)) AS constant
FROM "loop_feature_params" AS p
JOIN "loop_class_params" AS c USING (class)
GROUP BY c.class_index

ORDER BY 1