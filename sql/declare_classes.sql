-- Make sure the declared classes exist, with zero statistics when no row of them has
-- been seen yet (scikit-learn's `classes` argument of partial_fit).
{% import family_template as family %}
{% from 'common.sql' import list_of %}
INSERT INTO {{ t.class_stats }} (class, n, weight)
SELECT CAST(unnest({{ list_of(classes) }}) AS {{ class_type }}), 0, 0
ON CONFLICT (class) DO NOTHING;

{{ family.declare(t) }}
