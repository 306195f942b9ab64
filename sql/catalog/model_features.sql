-- The features table of a model, in order (for comparing specifications before a merge).
SELECT feature, type, alpha, coding, min_categories
FROM {{ source.features }}
ORDER BY feature_index
