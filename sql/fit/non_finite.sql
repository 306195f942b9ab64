-- What makes features' sums non-finite once NaN is read as missing (asked only when a fit
-- is about to be refused): per feature, how many of its values are infinite, and the
-- largest magnitude of its finite values.
SELECT
{% for f in features %}
{% set x = 'CAST(__src.' ~ f.column ~ ' AS DOUBLE)' %}
    count(*) FILTER (WHERE {{ sql.is_infinite(x) }}),
    max(abs({{ x }})) FILTER (WHERE {{ sql.is_finite(x) }}){{ "," if not loop.last }}
{% endfor %}
FROM {{ source }} AS __src
WHERE __src.{{ target }} IS NOT NULL
