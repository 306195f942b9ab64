{% from 'families/common.sql' import list_of %}
-- Features whose raw batch sums are not finite: a NaN (or an infinity) is in the column,
-- so the batch is computed again with NaN treated as missing. A feature comes once per
-- class whose sum it is (no DISTINCT: on Spark that is one more shuffle and job); the
-- caller takes the set.
{% if t.get('long_sums') %}
{#- a long batch (families/gaussian.sql's long_sums): its sums are a column #}
{#- (every feature checked: the rows of all, with no list of names to plan) #}
SELECT feature
FROM {{ t.batch }}
{% if checks | length == features | default([]) | length %}
WHERE feature IS NOT NULL
{% else %}
WHERE feature IN ({{ checks | map(attribute='name') | map('lit') | join(', ') }})
{% endif %}
  AND NOT {{ sql.is_finite('s1') }}
{% else %}
SELECT feature
FROM (
    SELECT
        {{ sql.unpivot([('feature', checks | map(attribute='name') | map('lit') | list), ('total', checks | map(attribute='column') | list)]) }}
    FROM {{ t.batch }}
)
WHERE NOT {{ sql.is_finite('total') }}
{% endif %}
