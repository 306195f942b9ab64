-- The fitted parameters that scoring compiles into one expression per class.
{% import family_template as family %}
{% if what == 'constants' %}
{{ family.class_constant(t) }}
ORDER BY 1
{% elif what == 'classes' %}
SELECT class_index, class, log_prior FROM {{ t.class_params }} ORDER BY class_index
{% else %}
{{ family.read_params(t) }}
-- (a categorical term's categories in the same order in every class)
ORDER BY 1, 2, 3
{% endif %}
