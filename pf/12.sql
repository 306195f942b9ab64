-- The classes of the model, in index order, with their log priors.
SELECT class_index, class, log_prior FROM "loop_class_params" ORDER BY class_index