-- A cheap look at the first rows: per class (and overall, for classes the sample misses)
-- a middle value of each feature. Batch sums are taken around it, so they keep their
-- precision when values are large, and constant columns give exactly zero variance.
CREATE OR REPLACE TEMP TABLE {{ t.shifts }} AS
SELECT
    {{ target }} AS class,
{% for f in features %}
    quantile_disc(CAST({{ f.column }} AS DOUBLE), 0.5) FILTER (WHERE isfinite(CAST({{ f.column }} AS DOUBLE))) AS {{ f.alias }}{{ "," if not loop.last }}
{% endfor %}
FROM (SELECT * FROM {{ source }} WHERE {{ target }} IS NOT NULL LIMIT {{ rows | lit }})
GROUP BY {{ target }};
