-- Record the model's features, in order, with their per-feature hyperparameters
-- (`create`: a staged write's new features table, created holding them, typed as
-- fit/create_model.sql types it).
{% if create | default(false) %}
{{ sql.create_table_as(t.features) }}
SELECT
    CAST(feature_index AS {{ sql.type('INTEGER') }}) AS feature_index,
    CAST(feature AS {{ sql.type('VARCHAR') }}) AS feature,
    CAST(type AS {{ sql.type('VARCHAR') }}) AS type,
    CAST(alpha AS DOUBLE) AS alpha,
    CAST(coding AS {{ sql.type('VARCHAR') }}) AS coding,
    CAST(min_categories AS BIGINT) AS min_categories
FROM (VALUES
{% for f in features %}
    ({{ loop.index0 }}, {{ f.name | lit }}, {{ f.type | lit }}, {{ f.alpha | lit }}, {{ f.coding | lit }}, {{ f.min_categories | lit }}){{ "," if not loop.last }}
{% endfor %}
) AS __features (feature_index, feature, type, alpha, coding, min_categories);
{% else %}
INSERT INTO {{ t.features }} (feature_index, feature, type, alpha, coding, min_categories)
VALUES
{% for f in features %}
    ({{ loop.index0 }}, {{ f.name | lit }}, {{ f.type | lit }}, {{ f.alpha | lit }}, {{ f.coding | lit }}, {{ f.min_categories | lit }}){{ "," if not loop.last }}
{% endfor %};
{% endif %}
