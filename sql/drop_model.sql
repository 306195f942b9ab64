-- Remove every relation of model {{ model | comment }}.
DROP VIEW IF EXISTS {{ t.feature_params }};
DROP VIEW IF EXISTS {{ t.class_params }};
DROP TABLE IF EXISTS {{ t.feature_stats }};
DROP TABLE IF EXISTS {{ t.features }};
DROP TABLE IF EXISTS {{ t.class_stats }};
DROP TABLE IF EXISTS {{ t.meta }};
DROP TABLE IF EXISTS {{ t.analyzer }};
DROP TABLE IF EXISTS {{ t.vocabulary }};
