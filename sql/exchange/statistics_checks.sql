-- The statistics of model {{ model | comment }} as a fit leaves them, checked after an import
-- or a restore loaded them from elsewhere: one row (role, problem, rows) per check, and a
-- check found a problem when its count is not 0. Each kind of check:
--   values   a column's values are finite (and >= 0, > 0, or a whole number up to a
--            limit); NULL only where a fit leaves it
--   grid     the statistics rows are keyed by a known (group, class) and feature; for a
--            complete grid, each (group, class) x feature has exactly one row
--   weighed  some class weighs more than 0
--   bounded  a Bernoulli count is at most the weight it was counted over
--   codes    an integer-coded category is a code 0 .. limit - 1
{% macro holds(column, rule, limit) -%}
{% if rule == 'finite' %}{{ sql.is_finite(column) }}
{%- elif rule == 'non_negative' %}{{ sql.is_finite(column) }} AND {{ column }} >= 0
{%- elif rule == 'positive' %}{{ sql.is_finite(column) }} AND {{ column }} > 0
{%- elif rule == 'at_most' %}{{ column }} BETWEEN 0 AND {{ limit | lit }}
{%- endif %}
{%- endmacro %}
{% macro violates(c) -%}
{% if c.nullable %}{{ c.column }} IS NOT NULL AND NOT ({{ holds(c.column, c.rule, c.limit) }}){% else %}{{ c.column }} IS NULL OR NOT coalesce({{ holds(c.column, c.rule, c.limit) }}, FALSE){% endif %}
{%- endmacro %}
{% macro same_keys(check, alias) %}{% for k in check.group_keys %}{{ alias }}.{{ k }} = c.{{ k }} AND {% endfor %}{% endmacro %}
{% macro named(check) %}{% if check.names is not none %} WHERE feature IN ({% for n in check.names %}{{ n | lit }}{{ ", " if not loop.last }}{% endfor %}){% endif %}{% endmacro %}
{% for c in checks %}
{% if c.kind == 'values' %}
SELECT {{ c.role | lit }} AS role, {{ c.problem | lit }} AS problem, count(*) AS n
FROM {{ c.table }}
WHERE {{ violates(c) }}
{% elif c.kind == 'grid' %}
SELECT {{ c.role | lit }} AS role, {{ c.problem | lit }} AS problem,
    (SELECT count(*) FROM {{ c.stats }} AS s
     WHERE NOT EXISTS (SELECT 1 FROM {{ c.classes }} AS c WHERE {{ same_keys(c, 's') }}c.class = s.class)
        OR s.feature NOT IN (SELECT feature FROM {{ c.features }}{{ named(c) }}))
{% if c.complete %}
    + abs((SELECT count(*) FROM {{ c.stats }})
          - (SELECT count(*) FROM {{ c.classes }})
            * (SELECT count(*) FROM {{ c.features }}{{ named(c) }}))
    + (SELECT count(*) FROM (SELECT {% for k in c.group_keys %}{{ k }}, {% endfor %}class, feature
                             FROM {{ c.stats }}
                             GROUP BY {% for k in c.group_keys %}{{ k }}, {% endfor %}class, feature
                             HAVING count(*) > 1) AS twice)
{% endif %}
    AS n
{% elif c.kind == 'weighed' %}
SELECT {{ c.role | lit }} AS role, {{ c.problem | lit }} AS problem,
    CASE WHEN coalesce(max(weight), 0) > 0 THEN 0 ELSE 1 END AS n
FROM {{ c.table }}
{% elif c.kind == 'bounded' %}
SELECT {{ c.role | lit }} AS role, {{ c.problem | lit }} AS problem, count(*) AS n
FROM {{ c.stats }} AS s
JOIN {{ c.classes }} AS c ON {{ same_keys(c, 's') }}c.class = s.class
WHERE s.count > CASE WHEN s.n = c.n OR s.weight IS NULL THEN c.weight ELSE s.weight END * (1 + 1e-9)
{% elif c.kind == 'codes' %}
SELECT {{ c.role | lit }} AS role, {{ c.problem | lit }} AS problem, count(*) AS n
FROM {{ c.stats }} AS s
JOIN {{ c.features }} AS f USING (feature)
WHERE f.coding = 'integer'
    AND coalesce(NOT (TRY_CAST(s.category AS {{ sql.type('HUGEINT') }}) BETWEEN 0 AND {{ (c.limit - 1) | lit }}), TRUE)
{% endif %}
{{ "UNION ALL" if not loop.last }}
{% endfor %}
