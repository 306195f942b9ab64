-- Problems found in the batch before it touches the model: missing values (only when
{% from 'families/common.sql' import list_of, columns_of %}
-- missing = 'error'), and the family's own checks (e.g. negative counts). Each row names
-- a feature and a problem.
{% import family_template as family %}
{% set reject_missing = (p.missing | default('error')) == 'error' %}
{% if t.get('long_sums') %}
{#- a long batch: a row per class and feature, with the class's labelled rows #}
SELECT feature, 'has missing values (NULL or NaN) and missing is ''error''' AS problem
FROM {{ t.batch }}
WHERE feature IS NOT NULL AND n < rows AND {{ reject_missing | lit }}
{% elif not family_long_batch %}
SELECT feature, 'has missing values (NULL or NaN) and missing is ''error''' AS problem
FROM (
    SELECT
        n,
        {{ sql.unpivot([('feature', (features | map(attribute='name') | map('lit') | list)), ('non_null', (features | map(attribute='alias')) | each('{}_n'))]) }}
    FROM {{ t.batch }}
)
WHERE non_null < n AND {{ reject_missing | lit }}
{% else %}
SELECT feature, 'has missing values (NULL) and missing is ''error''' AS problem
FROM {{ t.batch }}
WHERE feature IS NOT NULL AND category IS NULL AND {{ reject_missing | lit }}
{% endif %}
{% if family_has_batch_checks %}
UNION ALL
{{ family.batch_checks(t, features) }}
{% endif %}
