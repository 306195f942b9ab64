-- (Re)write the one-row metadata of model {{ model | comment }}.
DELETE FROM {{ t.meta }};
INSERT INTO {{ t.meta }}
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
    {{ version | lit }};
