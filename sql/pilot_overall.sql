-- The fallback shift per feature, for classes the pilot sample did not see.
SELECT
{% for f in features %}
    coalesce(quantile_disc({{ f.alias }}, 0.5), 0){{ "," if not loop.last }}
{% endfor %}
FROM {{ t.shifts }}
