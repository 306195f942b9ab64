-- A model created by merging takes its features (and their hyperparameters) from the
-- first model merged into it.
INSERT INTO {{ t.features }} (feature_index, feature, type, alpha, coding, min_categories)
SELECT feature_index, feature, type, alpha, coding, min_categories
FROM {{ source.features }}
ORDER BY feature_index;
