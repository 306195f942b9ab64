{#- The fitted parameters that scoring compiles into one expression per class. -#}

{# Each class's constant term (its log prior and what does not depend on the row). #}
{% macro constants(t, family_template) -%}
{% import family_template as family %}
-- The fitted parameters that scoring compiles into one expression per class.
{{ family.class_constant(t) }}
ORDER BY 1
{%- endmacro %}

{# The classes in index order, with their log priors. #}
{% macro classes(t) -%}
-- The classes of the model, in index order, with their log priors.
SELECT class_index, class, log_prior FROM {{ t.class_params }} ORDER BY class_index
{%- endmacro %}

{#- Everything `classes`, `constants` and `terms` (or `terms_elided`, given `limit`) read,
    in one statement: per class, its index, label, log prior and constant, then each of its
    terms (the columns of `terms`), one row per term; a class without terms has one row
    whose term columns are NULL. A family whose constant sums its terms' parameters
    (`constant_over`) reads its parameter view once, the constant a window over the terms;
    the others join their constants. -#}
{% macro together(t, family_template, limit=None) -%}
{% import family_template as family %}
-- The fitted parameters that scoring compiles into one expression per class, in one read:
-- each class's label, log prior and constant beside its terms.
{% if family.constant_over is defined and not limit %}
SELECT c.class_index, c.class, c.log_prior, {{ family.constant_over('__sqlnb_terms', 'c') }} AS constant, __sqlnb_terms.*
FROM (
{{ family.read_params(t) }}
) AS __sqlnb_terms
JOIN {{ t.class_params }} AS c ON c.class_index = __sqlnb_terms.class_index
{% else %}
WITH __sqlnb_constants AS (
{{ family.class_constant(t) }}
), __sqlnb_terms AS (
{% if limit %}
{{ family.read_params_elided(t, limit) }}
{% else %}
{{ family.read_params(t) }}
{% endif %}
)
SELECT c.class_index, c.class, c.log_prior, k.constant, __sqlnb_terms.*
FROM {{ t.class_params }} AS c
JOIN __sqlnb_constants AS k ON k.class_index = c.class_index
LEFT JOIN __sqlnb_terms ON __sqlnb_terms.class_index = c.class_index
{% endif %}
-- (a categorical term's categories in the same order in every class)
ORDER BY 1, 6, 7
{%- endmacro %}

{# One row per class, feature (and category): the family's scoring parameters. #}
{% macro terms(t, family_template) -%}
{% import family_template as family %}
-- The fitted parameters that scoring compiles into one expression per class.
{{ family.read_params(t) }}
-- (a categorical term's categories in the same order in every class)
ORDER BY 1, 2, 3
{%- endmacro %}

{# `terms`, a categorical family's features of more than `limit` categories left in the
   database (their unseen row only, and `elided`). #}
{% macro terms_elided(t, family_template, limit) -%}
{% import family_template as family %}
-- The fitted parameters that scoring compiles into one expression per class (a feature of
-- many categories is joined from the parameter view instead).
{{ family.read_params_elided(t, limit) }}
ORDER BY 1, 2, 3
{%- endmacro %}

{# One elided categorical feature's categories, per class. #}
{% macro categories(t, family_template, feature) -%}
{% import family_template as family %}
-- The categories of one feature of many categories, and each class's coefficient.
{{ family.read_categories(t, feature) }}
{%- endmacro %}
