-- The class priors of a model, classes in sorted order.
SELECT class, exp(log_prior) AS prior, n, weight
FROM {{ class_params }}
ORDER BY class_index
