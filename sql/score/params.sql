-- Derived parameters of model {{ model | comment }}, as views over its statistics tables,
-- so they always agree with the statistics.
{% import family_template as family %}
{% from 'families/common.sql' import list_of, by_group, partition_by_group %}
{{ sql.create_view(t.class_params) }}
SELECT
    {{ by_group(t) }}class,
    CAST(row_number() OVER (ORDER BY {{ by_group(t) }}class) - 1 AS INTEGER) AS class_index,
    n,
    weight,
{% if priors is not none %}
    -- priors given by the user, in sorted class order
    {{ sql.ln(sql.double_at(priors | map('lit') | list, 'row_number() OVER (' ~ partition_by_group(t) ~ (' ' if t.get('groups')) ~ 'ORDER BY class)')) }} AS log_prior
{% elif fit_prior %}
    -- empirical prior: the class's share of the total sample weight
    {{ sql.ln('weight') }} - ln(sum(weight) OVER ({{ partition_by_group(t) }})) AS log_prior
{% else %}
    -- uniform prior
    -ln(count(*) OVER ({{ partition_by_group(t) }})) AS log_prior
{% endif %}
FROM {{ t.class_stats }};

{{ family.feature_params(t, p) }}
