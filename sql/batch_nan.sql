{% from 'common.sql' import list_of %}
-- Features whose raw batch sums are not finite: a NaN (or an infinity) is in the column,
-- so the batch is computed again with NaN treated as missing.
SELECT DISTINCT feature
FROM (
    SELECT
        unnest({{ list_of(checks | map(attribute='name')) }}) AS feature,
        unnest([{% for c in checks %}{{ c.column }}{{ ", " if not loop.last }}{% endfor %}]) AS total
    FROM {{ t.batch }}
)
WHERE NOT isfinite(total)
