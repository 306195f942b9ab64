-- A cheap look at the first rows: per class there (labelled or not), each feature's mean,
-- smallest and largest value. Python takes the shift of the feature's batch sums from the
-- means (so the sums keep their precision when values are large) and, where some class
-- lies away from that shift, has the batch query sum that feature around each class's own
-- value from the same rows (families/gaussian.sql's pilot_shifts), so well-separated
-- classes need no rescan; a class the first rows miss is caught by the batch's
-- cancellation check. No quantiles and no joins: with thousands of features those cost
-- more than the scan. The rows are the source's first ones: a filter under the LIMIT
-- would make DuckDB's Parquet reader fetch every row group, a second full read of the
-- file; without it, only the first row group.
SELECT
{% for f in features %}
    {% set x = 'CAST(' ~ f.column ~ ' AS DOUBLE)' %}
    avg({{ x }}), min({{ x }}), max({{ x }}),
{% endfor %}
    {{ target }}
FROM (SELECT * FROM {{ source }} LIMIT {{ rows | lit }}) AS __first
GROUP BY {{ target }}
