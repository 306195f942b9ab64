-- Make sure the declared classes exist, with zero statistics when no row of them has
-- been seen yet (scikit-learn's `classes` argument of partial_fit).
{% import family_template as family %}
{% macro as_class(label) %}{{ label | lit(class_type) }}{% endmacro %}
{% set rows %}
SELECT {{ sql.unpivot([('class', classes | each(as_class))]) }}, 0 AS n, CAST(0 AS DOUBLE) AS weight
{% endset %}
{{ sql.insert_missing(t.class_stats, ['class'], ['n', 'weight'], rows, t.get('next_class_stats')) }};

{{ family.declare(t, features) }}
