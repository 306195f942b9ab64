-- The shift per feature (zero where the first rows had no finite value).
SELECT
{% for f in features %}
    CASE WHEN {{ sql.is_finite(f.alias) }} THEN {{ f.alias }} ELSE 0 END{{ "," if not loop.last }}
{% endfor %}
FROM {{ t.shifts }}
