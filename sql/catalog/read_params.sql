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
