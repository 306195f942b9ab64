-- One scan of the source for every column-wise part of mixed model {{ model | comment }}
-- (Gaussian, Bernoulli, multinomial, Poisson): each part's per-class sums side by side,
-- as the families' own batch queries would compute them. Categorical columns have their
-- own grouping-sets scan.
{{ sql.temp_table(t.batch) }}
SELECT
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
GROUP BY __src.{{ target }};
