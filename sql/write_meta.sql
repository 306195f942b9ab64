-- (Re)write the one-row metadata of model {{ model | comment }}. A schema-1 table gains the
-- spec and relations columns here (the model is then schema 2).
ALTER TABLE {{ t.meta }} ADD COLUMN IF NOT EXISTS spec VARCHAR;
ALTER TABLE {{ t.meta }} ADD COLUMN IF NOT EXISTS relations VARCHAR;
DELETE FROM {{ t.meta }};
INSERT INTO {{ t.meta }} (schema_version, model, family, params, target, target_type, weight,
                          features, classes, fitted_at, sqlnb_version, spec, relations)
SELECT
    {{ schema_version | lit }},
    {{ model | lit }},
    {{ family_name | lit }},
    {{ params_json | lit }},
    {{ target | lit }},
    {{ target_type | lit }},
    {{ weight | lit }},
    {{ features_json | lit }},
    (SELECT to_json(list(class ORDER BY class))::VARCHAR FROM {{ t.class_stats }}),
    current_timestamp::TIMESTAMP,
    {{ version | lit }},
    {{ spec_json | lit }},
    {{ relations_json | lit }};
