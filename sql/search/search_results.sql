-- The cross-validation results of model {{ model | comment }}: one row per candidate, with
-- scikit-learn's GridSearchCV column names (param_<name>, params, split<k>_test_<metric>,
-- mean_test_<metric>, std_test_<metric>, rank_test_<metric>). Ranks are as GridSearchCV
-- ranks them: the highest mean first, ties share the smallest rank.
WITH splits ({% for column in columns %}{{ column }}{{ ", " if not loop.last }}{% endfor %}) AS (
    VALUES
{% for row in rows %}
        ({% for value in row %}{{ value }}{{ ", " if not loop.last }}{% endfor %}){{ "," if not loop.last }}
{% endfor %}
), means AS (
    SELECT
        *,
{% for m in metrics %}
        ({% for s in m.splits %}{{ s }}{{ " + " if not loop.last }}{% endfor %}) / {{ m.splits | length | lit }} AS {{ m.mean }}{{ "," if not loop.last }}
{% endfor %}
    FROM splits
), spread AS (
    SELECT
        *,
{% for m in metrics %}
        -- the population standard deviation over the splits (numpy.std)
        sqrt(({% for s in m.splits %}({{ s }} - {{ m.mean }}) * ({{ s }} - {{ m.mean }}){{ " + " if not loop.last }}{% endfor %}) / {{ m.splits | length | lit }}) AS {{ m.std }}{{ "," if not loop.last }}
{% endfor %}
    FROM means
), ranked AS (
    SELECT
        *,
{% for m in metrics %}
        CAST(rank() OVER (ORDER BY {{ m.mean }} DESC NULLS LAST) AS INTEGER) AS {{ m.rank }}{{ "," if not loop.last }}
{% endfor %}
    FROM spread
)
SELECT
{% if only is defined %}
    {{ only | join(", ") }}
{% else %}
{% for column in leading %}
    {{ column }},
{% endfor %}
{% for m in metrics %}
{% for s in m.splits %}
    {{ s }},
{% endfor %}
    {{ m.mean }},
    {{ m.std }},
    {{ m.rank }}{{ "," if not loop.last }}
{% endfor %}
{% endif %}
FROM ranked
ORDER BY __sqlnb_candidate
