-- (Re)write the one-row metadata of model tiny. A schema-1 table gains the
-- spec and relations columns here (the model is then schema 2), unless the table is known
-- to have them (`has_columns`: an update, which then runs no DDL).
-- `create`: a staged write's new version of the table is created holding the row (the
-- columns typed as fit/create_model.sql types them), in one statement.
DELETE FROM "tiny_meta";
INSERT INTO "tiny_meta" (schema_version, model, family, params, target, target_type, weight,
                          features, classes, fitted_at, sqlnb_version, spec, relations)
SELECT
    2,
    'tiny',
    'gaussian',
    '{"priors": null, "var_smoothing": 1e-09, "missing": "ignore"}',
    'y',
    'BIGINT',
    NULL,
    '[{"name": "x0", "type": "DOUBLE", "origin": 3.0158761259052937}, {"name": "x1", "type": "DOUBLE", "origin": 3.0294769042382015}, {"name": "x2", "type": "DOUBLE", "origin": 2.9985681916126583}, {"name": "x3", "type": "DOUBLE", "origin": 2.9735291654540394}, {"name": "x4", "type": "DOUBLE", "origin": 3.038181807938575}, {"name": "x5", "type": "DOUBLE", "origin": 3.018122299740536}, {"name": "x6", "type": "DOUBLE", "origin": 2.9474335582578477}, {"name": "x7", "type": "DOUBLE", "origin": 3.014513771501846}, {"name": "x8", "type": "DOUBLE", "origin": 3.074951189832395}, {"name": "x9", "type": "DOUBLE", "origin": 3.001989723587231}, {"name": "x10", "type": "DOUBLE", "origin": 2.974567588815398}, {"name": "x11", "type": "DOUBLE", "origin": 3.0058057748060594}, {"name": "x12", "type": "DOUBLE", "origin": 2.993676808462699}, {"name": "x13", "type": "DOUBLE", "origin": 2.9796668589123567}, {"name": "x14", "type": "DOUBLE", "origin": 3.036555013543785}, {"name": "x15", "type": "DOUBLE", "origin": 2.9764472330728204}, {"name": "x16", "type": "DOUBLE", "origin": 2.970344816885799}, {"name": "x17", "type": "DOUBLE", "origin": 2.9990145029253483}, {"name": "x18", "type": "DOUBLE", "origin": 3.013066386845528}, {"name": "x19", "type": "DOUBLE", "origin": 3.037741208436941}]',
    (SELECT to_json(list(class ORDER BY class))::VARCHAR FROM "tiny_class_stats"),
    current_timestamp::TIMESTAMP,
    '0.1.0',
    '{"input": "columns", "groups": [], "parts": ["gaussian"]}',
    '["tiny_meta", "tiny_class_stats", "tiny_features", "tiny_feature_stats", "tiny_class_params", "tiny_feature_params"]';
