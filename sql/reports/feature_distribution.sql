-- The fitted distribution of one feature in each class of a model: the columns of its
-- family's parameter view that describe it (the family's described_by: a density, a
-- probability per category, or one value per class), classes in sorted order.
SELECT
    c.class,
{% if shape == 'density' %}
    p.theta,
    p.var
{% else %}
{% if shape == 'categories' %}
    CAST(p.category AS VARCHAR) AS category,
{% endif %}
{% if value == 'probability' %}
    exp(p.log_prob) AS probability
{% elif value == 'weight' %}
    p.log_prob AS weight
{% else %}
    p.rate
{% endif %}
{% endif %}
FROM {{ params }} AS p
JOIN {{ class_params }} AS c ON c.class = p.class
WHERE p.feature = {{ feature | lit }}
{% if shape == 'categories' %}
  AND p.category IS NOT NULL
ORDER BY c.class_index, p.category
{% else %}
ORDER BY c.class_index
{% endif %}
