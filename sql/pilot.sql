-- A cheap look at the first rows: a per-feature shift close to the data, so that the
-- batch's sums of squares are taken around it and do not lose precision.
SELECT
{% for f in features %}
    coalesce(avg(CAST({{ f.column }} AS DOUBLE)) FILTER (WHERE isfinite(CAST({{ f.column }} AS DOUBLE))), 0) AS {{ f.alias }}{{ "," if not loop.last }}
{% endfor %}
FROM (SELECT * FROM {{ source }} LIMIT {{ rows | lit }})
