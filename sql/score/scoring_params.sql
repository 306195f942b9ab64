-- The parameters the scoring macros of model {{ model | comment }} read: one row per class,
-- each parameter a list in the model's feature order (the same numbers as the arrays
-- strategy binds, see sqlnb/scoring.py). A view over the statistics tables, so it is
-- current by construction: a write that adds no class or feature changes only the
-- statistics, and the macros (whose text names the features and classes, not these
-- numbers) read its result at their next call.
{% import family_template as family %}
CREATE OR REPLACE VIEW {{ t.scoring_params }} AS
{% if family.scoring_params is defined %}
{{ family.scoring_params(t, p) | trim }};
{% else %}
WITH terms AS (
{{ family.read_params(t) | trim }}
), constants AS (
{{ family.class_constant(t) | trim }}
), ordered AS (
    SELECT
        terms.*,
        f.feature_index{% if kind == 'distance' %},
        -- one shift per feature (the mean of the class means): x - shift keeps its digits
        avg(terms.theta) OVER (PARTITION BY terms.feature) AS shift,
        CASE WHEN terms.var > 0 THEN sqrt(0.5 / terms.var) ELSE CAST('inf' AS DOUBLE) END AS scale{% endif %}

    FROM terms
    JOIN {{ t.features }} AS f USING (feature)
)
SELECT
    ordered.class_index,
    any_value(c.class) AS class,
    -- the model version these numbers belong to (always the current one)
    any_value(m.fitted_at) AS fitted_at,
{% if kind == 'distance' %}
    any_value(k.constant) AS constant,
    any_value(k.constant) AS full_constant,
    list(shift ORDER BY feature_index) AS shift,
    list(scale ORDER BY feature_index) AS scale,
    list((theta - shift) * scale ORDER BY feature_index) AS target,
    -- a missing value gives back its 0.5 ln(2 pi var) from the constant
    list(CASE WHEN var > 0 THEN 0.5 * ln(2 * pi() * var) ELSE CAST('inf' AS DOUBLE) END ORDER BY feature_index) AS fallback
{% elif kind == 'counts' %}
    -- the rates' sum moves into the constant; a missing value gives its rate back
    any_value(k.constant) - sum(rate) AS constant,
    any_value(k.constant) AS full_constant,
    list(coef ORDER BY feature_index) AS weights,
    list(rate ORDER BY feature_index) AS fallback
{% else %}
    any_value(k.constant) AS constant,
    any_value(k.constant) AS full_constant,
    list(coef ORDER BY feature_index) AS weights,
    -- a missing value takes back its log(1 - p) from the constant (Bernoulli)
    list({% if 'log_neg_prob' in family_scoring_parameters %}-log_neg_prob{% else %}CAST(0 AS DOUBLE){% endif %} ORDER BY feature_index) AS fallback
{% endif %}
FROM ordered
JOIN constants AS k USING (class_index)
JOIN {{ t.class_params }} AS c USING (class_index)
CROSS JOIN (SELECT fitted_at FROM {{ t.meta }}) AS m
GROUP BY ordered.class_index;
{% endif %}
