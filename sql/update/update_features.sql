-- Refresh the per-feature hyperparameters (alpha, min_categories) of an existing model:
-- they only shape the derived parameters, never the statistics.
{% set rows %}
VALUES
{% for f in features %}
    ({{ f.name | lit }}, CAST({{ f.alpha | lit }} AS DOUBLE), CAST({{ f.min_categories | lit }} AS BIGINT)){{ "," if not loop.last }}
{% endfor %}
{% endset %}
{{ sql.update(t.features, ['feature'], ['alpha', 'min_categories'], rows,
              ['feature_index', 'feature', 'type', 'alpha', 'coding', 'min_categories'],
              t.get('next_features')) }};
