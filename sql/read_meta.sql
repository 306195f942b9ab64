-- The metadata row of model {{ model | comment }}.
SELECT schema_version, model, family, params, target, target_type, weight, features, classes, fitted_at
FROM {{ t.meta }}
