-- The fitted distribution of one feature in each class of a model:
-- the columns of its family's parameter view, classes in sorted order.
SELECT
    c.class,
{% if family == 'gaussian' %}
    p.theta,
    p.var
{% elif family == 'categorical' %}
    CAST(p.category AS VARCHAR) AS category,
    exp(p.log_prob) AS probability
{% elif family == 'bernoulli' %}
    exp(p.log_prob) AS probability
{% elif family == 'poisson' %}
    p.rate
{% elif family == 'complement' %}
    p.log_prob AS weight
{% else %}
    exp(p.log_prob) AS probability
{% endif %}
FROM {{ params }} AS p
JOIN {{ class_params }} AS c ON c.class = p.class
WHERE p.feature = {{ feature | lit }}
{% if family == 'categorical' %}
  AND p.category IS NOT NULL
ORDER BY c.class_index, p.category
{% else %}
ORDER BY c.class_index
{% endif %}
