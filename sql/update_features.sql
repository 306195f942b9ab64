-- Refresh the per-feature hyperparameters (alpha, min_categories) of an existing model:
-- they only shape the derived parameters, never the statistics.
UPDATE {{ t.features }} AS f
SET alpha = v.alpha, min_categories = v.min_categories
FROM (
    VALUES
    {% for f in features %}
        ({{ f.name | lit }}, CAST({{ f.alpha | lit }} AS DOUBLE), CAST({{ f.min_categories | lit }} AS BIGINT)){{ "," if not loop.last }}
    {% endfor %}
) AS v(feature, alpha, min_categories)
WHERE f.feature = v.feature;
