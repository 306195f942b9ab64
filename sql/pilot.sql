-- A cheap look at the first rows: the mean of each feature over them. The first batch
-- scan sums every feature around this shift, so the sums keep their precision when values
-- are large; a class far from it (relative to its spread) is rescanned around its own mean.
-- No GROUP BY and no quantiles: with thousands of features those cost more than the scan.
{{ sql.temp_table(t.shifts) }}
SELECT
{% for f in features %}
    avg(CAST({{ f.column }} AS DOUBLE)) AS {{ f.alias }}{{ "," if not loop.last }}
{% endfor %}
FROM (SELECT * FROM {{ source }} WHERE {{ target }} IS NOT NULL LIMIT {{ rows | lit }});
