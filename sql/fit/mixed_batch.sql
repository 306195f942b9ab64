-- One scan of the source for every column-wise part of mixed model {{ model | comment }}
-- (Gaussian, Bernoulli, multinomial, Poisson): each part's per-class sums side by side,
-- as the families' own batch queries would compute them. Categorical columns have their
-- own grouping-sets scan. A per-group model gets, in the same scan, each group's rows and
-- the pooled rows (group NULL), as the families' batch queries do.
{% from 'families/common.sql' import by_group %}
{{ sql.temp_table(t.batch) }}
SELECT
{% if t.get('groups') %}
    GROUPING(__src.{{ t.groups[0].column }}) > 0 AS __sqlnb_pooled,
{% for g in t.groups %}
    __src.{{ g.column }} AS {{ g.column }},
{% endfor %}
{% endif %}
    __src.{{ target }} AS class,
    count(*) AS n,
    {% if weight %}sum(__src.{{ weight }}){% else %}CAST(count(*) AS DOUBLE){% endif %} AS weight,
{% for part in parts %}
{% import part.template as family %}
    {{ family.batch_columns(part.features, part.weight, **part.options) | trim }}
{% endfor %}
FROM {{ source }} AS __src
-- (Gaussian columns are summed around one literal shift per feature: no join needed)
WHERE __src.{{ target }} IS NOT NULL
{% if t.get('groups') %}
GROUP BY GROUPING SETS (({{ by_group(t, '__src.') }}__src.{{ target }}), (__src.{{ target }}));
{% else %}
GROUP BY __src.{{ target }};
{% endif %}
