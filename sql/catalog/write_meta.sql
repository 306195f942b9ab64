-- (Re)write the one-row metadata of model {{ model | comment }}. A schema-1 table gains the
-- spec and relations columns here (the model is then schema 2), unless the table is known
-- to have them (`has_columns`: an update, which then runs no DDL).
-- `create`: a staged write's new version of the table is created holding the row (the
-- columns typed as fit/create_model.sql types them), in one statement.
{% if create | default(false) %}
{% set text = sql.type('VARCHAR') %}
{{ sql.create_table_as(t.meta) }}
SELECT
    CAST({{ schema_version | lit }} AS {{ sql.type('INTEGER') }}) AS schema_version,
    CAST({{ model | lit }} AS {{ text }}) AS model,
    CAST({{ family_name | lit }} AS {{ text }}) AS family,
    CAST({{ params_json | lit }} AS {{ text }}) AS params,
    CAST({{ target | lit }} AS {{ text }}) AS target,
    CAST({{ target_type | lit }} AS {{ text }}) AS target_type,
    CAST({{ weight | lit }} AS {{ text }}) AS weight,
    CAST({{ features_json | lit }} AS {{ text }}) AS features,
    CAST({{ sql.sorted_json_list('class', t.class_stats) }} AS {{ text }}) AS classes,
    CAST({{ sql.now() }} AS {{ sql.type('TIMESTAMP') }}) AS fitted_at,
    CAST({{ version | lit }} AS {{ text }}) AS sqlnb_version,
    CAST({{ spec_json | lit }} AS {{ text }}) AS spec,
    CAST({{ relations_json | lit }} AS {{ text }}) AS relations;
{% else %}
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
{% endif %}
