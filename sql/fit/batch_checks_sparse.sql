-- Problems in a sparse batch: negative values where the family needs counts.
SELECT feature, 'has negative values; {{ family_name }} naive Bayes needs non-negative counts' AS problem
FROM {{ t.batch }}
WHERE {{ needs_non_negative | lit }} AND feature IS NOT NULL AND (min_value < 0 OR isnan(min_value))
