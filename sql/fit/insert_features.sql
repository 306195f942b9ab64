-- Record the model's features, in order, with their per-feature hyperparameters.
INSERT INTO {{ t.features }} (feature_index, feature, type, alpha, coding, min_categories)
VALUES
{% for f in features %}
    ({{ loop.index0 }}, {{ f.name | lit }}, {{ f.type | lit }}, {{ f.alpha | lit }}, {{ f.coding | lit }}, {{ f.min_categories | lit }}){{ "," if not loop.last }}
{% endfor %};
