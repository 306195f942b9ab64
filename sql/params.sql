-- Derived parameters of model {{ model | lit }}, as views over its statistics tables,
-- so they always agree with the statistics.
{% import family_template as family %}
{% from 'common.sql' import list_of %}
CREATE OR REPLACE VIEW {{ t.class_params }} AS
SELECT
    class,
    CAST(row_number() OVER (ORDER BY class) - 1 AS INTEGER) AS class_index,
    n,
    weight,
{% if priors is not none %}
    -- priors given by the user, in sorted class order
    ln(CAST({{ list_of(priors) }} AS DOUBLE[])[row_number() OVER (ORDER BY class)]) AS log_prior
{% elif fit_prior %}
    -- empirical prior: the class's share of the total sample weight
    ln(weight) - ln(sum(weight) OVER ()) AS log_prior
{% else %}
    -- uniform prior
    -ln(count(*) OVER ()) AS log_prior
{% endif %}
FROM {{ t.class_stats }};

{{ family.feature_params(t, p) }}
