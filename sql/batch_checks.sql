-- Problems found in the batch before it touches the model: missing values, and the
{% from 'common.sql' import list_of, columns_of %}
-- family's own checks (e.g. negative counts). Each row names a feature and a problem.
{% import family_template as family %}
{% if not family_long_batch %}
SELECT feature, 'has missing values (NULL)' AS problem
FROM (
    SELECT
        unnest({{ list_of(features | map(attribute='name')) }}) AS feature,
        unnest({{ columns_of(features, '_n') }}) AS non_null,
        n
    FROM {{ t.batch }}
)
WHERE non_null < n
{% else %}
SELECT feature, 'has missing values (NULL)' AS problem
FROM {{ t.batch }}
WHERE feature IS NOT NULL AND category IS NULL
{% endif %}
{% if family_has_batch_checks %}
UNION ALL
{{ family.batch_checks(t, features) }}
{% endif %}
