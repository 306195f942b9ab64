-- Remove the per-group tables of model {{ model_comment | comment }} (if it has any).
DROP VIEW IF EXISTS {{ t.feature_params }};
DROP VIEW IF EXISTS {{ t.class_params }};
DROP TABLE IF EXISTS {{ t.feature_stats }};
DROP TABLE IF EXISTS {{ t.class_stats }};
DROP TABLE IF EXISTS {{ group_columns }};
