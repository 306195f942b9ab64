-- A cheap look at the first rows, in one query: per feature, the shift its batch sums are
-- taken around (the mean over those rows; zero where they have no finite value), so the
-- sums keep their precision when values are large. With `per_class`, also per feature
-- whether some class among those rows lies more than one spread from that shift: its sums
-- are then taken around each class's own value from the same rows (the batch query joins
-- them, see families/gaussian.sql's pilot_shifts), so well-separated classes need no
-- rescan. A class the first rows miss is caught by the batch's cancellation check.
-- No quantiles: with thousands of features those cost more than the scan. The rows are
-- the source's first ones, labelled or not (any shift near the data keeps the digits): a
-- filter under the LIMIT would make DuckDB's Parquet reader fetch every row group, a
-- second full read of the file; without it, only the first row group.
WITH __first AS (
    SELECT * FROM {{ source }} LIMIT {{ rows | lit }}
), overall AS (
    SELECT
{% for f in features %}
        avg(CAST({{ f.column }} AS DOUBLE)) AS {{ f.alias }}{{ "," if not loop.last }}
{% endfor %}
    FROM __first
), shifts AS (
    SELECT
{% for f in features %}
        CASE WHEN {{ sql.is_finite(f.alias) }} THEN {{ f.alias }} ELSE 0 END AS {{ f.alias }}{{ "," if not loop.last }}
{% endfor %}
    FROM overall
){% if per_class %}, per_class AS (
    -- per class, the mean distance d1 to the shift and the mean squared distance d2: the
    -- class's mean is more than one spread away when d1^2 > d2 - d1^2
    SELECT
{% for f in features %}
        avg(CAST(__first.{{ f.column }} AS DOUBLE) - s.{{ f.alias }}) AS {{ f.alias }}_d1,
        avg((CAST(__first.{{ f.column }} AS DOUBLE) - s.{{ f.alias }}) * (CAST(__first.{{ f.column }} AS DOUBLE) - s.{{ f.alias }})) AS {{ f.alias }}_d2{{ "," if not loop.last }}
{% endfor %}
    FROM __first CROSS JOIN shifts AS s
    WHERE __first.{{ target }} IS NOT NULL
    GROUP BY __first.{{ target }}
){% endif %}

SELECT
{% for f in features %}
    {% if per_class %}any_value(s.{{ f.alias }}){% else %}s.{{ f.alias }}{% endif %},
{% endfor %}
{% for f in features %}
    {% if per_class %}coalesce(max(CASE WHEN 2 * p.{{ f.alias }}_d1 * p.{{ f.alias }}_d1 > p.{{ f.alias }}_d2 THEN 1 ELSE 0 END), 0){% else %}0{% endif %}{{ "," if not loop.last }}
{% endfor %}
FROM shifts AS s
{% if per_class %}
LEFT JOIN per_class AS p ON 1 = 1
{% endif %}
