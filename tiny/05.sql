-- Remove relations the model owns (sqlnb/ownership.py decides which: never another's).
DROP TABLE IF EXISTS "tiny_meta";
DROP TABLE IF EXISTS "tiny_class_stats";
DROP TABLE IF EXISTS "tiny_features";
DROP TABLE IF EXISTS "tiny_feature_stats";
DROP VIEW IF EXISTS "tiny_class_params";
DROP VIEW IF EXISTS "tiny_feature_params";
