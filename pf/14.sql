-- The fitted parameters that scoring compiles into one expression per class.
SELECT c.class_index, p.feature, p.theta, p.var
FROM "loop_feature_params" AS p
JOIN "loop_class_params" AS c USING (class)

-- (a categorical term's categories in the same order in every class)
ORDER BY 1, 2, 3