{% from 'families/common.sql' import list_of %}
-- Features whose raw batch sums are not finite: a NaN (or an infinity) is in the column,
-- so the batch is computed again with NaN treated as missing. A feature comes once per
-- class whose sum it is (no DISTINCT: on Spark that is one more shuffle and job); the
-- caller takes the set.
SELECT feature
FROM (
    SELECT
        {{ sql.unpivot([('feature', checks | map(attribute='name') | map('lit') | list), ('total', checks | map(attribute='column') | list)]) }}
    FROM {{ t.batch }}
)
WHERE NOT {{ sql.is_finite('total') }}
