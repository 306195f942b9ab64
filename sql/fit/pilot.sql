-- A cheap look at the first rows: the mean of each feature over them. The first batch
-- scan sums every feature around this shift, so the sums keep their precision when values
-- are large; a class far from it (relative to its spread) is rescanned around its own mean.
-- No GROUP BY and no quantiles: with thousands of features those cost more than the scan.
-- The rows are the source's first ones, labelled or not (any shift near the data keeps
-- the digits): a filter under the LIMIT would make DuckDB's Parquet reader fetch every
-- row group, a second full read of the file; without it, only the first row group.
{{ sql.temp_table(t.shifts) }}
SELECT
{% for f in features %}
    avg(CAST({{ f.column }} AS DOUBLE)) AS {{ f.alias }}{{ "," if not loop.last }}
{% endfor %}
FROM (SELECT * FROM {{ source }} LIMIT {{ rows | lit }});
