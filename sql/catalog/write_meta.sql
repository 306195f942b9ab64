-- (Re)write the one-row metadata of model {{ model | comment }}. A schema-1 table gains the
-- spec and relations columns here (the model is then schema 2), unless the table is known
-- to have them (`has_columns`: an update, which then runs no DDL).
{% if not has_columns | default(false) %}
{{ sql.add_column(t.meta, 'spec', 'VARCHAR') }}
{{ sql.add_column(t.meta, 'relations', 'VARCHAR') }}
{% endif %}
{{ sql.delete_all(t.meta) }};
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
    {{ sql.sorted_json_list('class', t.class_stats) }},
    {{ sql.now() }},
    {{ version | lit }},
    {{ spec_json | lit }},
    {{ relations_json | lit }};
