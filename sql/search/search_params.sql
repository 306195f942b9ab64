{#- The parameters of every candidate of a cross-validation at once: each candidate's
    parameter views (named after it, `c.t`) over the same held-out statistics, then, in one
    statement each, the classes, the constants and the terms of them all (and their log
    priors, for a mixed model's parts), the candidate first. -#}

{# Every candidate's parameter views. #}
{% macro views(candidates, family_template, model) -%}
-- The parameter views of every candidate of the cross-validation of model {{ model | comment }}.
{% for c in candidates %}
{% with t = c.t, p = c.p, priors = c.priors, fit_prior = c.fit_prior %}
{% include 'score/params.sql' %}
{% endwith %}
{% endfor %}
{%- endmacro %}

{# The held-out classes (the same for every candidate). #}
{% macro classes(candidates) -%}
{% import 'catalog/read_group_classes.sql' as group_classes %}
{{ group_classes.classes(candidates[0].t) }}
{%- endmacro %}

{# One query per candidate, the candidate's index first, in one UNION ALL. #}
{% macro each_candidate(candidates, order) -%}
{% for c in candidates %}
SELECT {{ loop.index0 | lit }} AS __sqlnb_candidate, *
FROM (
{{ caller(c) }}
)
{{ "UNION ALL" if not loop.last }}
{% endfor %}
ORDER BY {{ order }}
{%- endmacro %}

{# Every candidate's class constants. #}
{% macro constants(candidates, family_template) -%}
{% import family_template as family %}
{% call(c) each_candidate(candidates, "1, 2") %}{{ family.class_constant(c.t) }}{% endcall %}
{%- endmacro %}

{# Every candidate's log priors. #}
{% macro priors(candidates) -%}
{% call(c) each_candidate(candidates, "1, 2") %}SELECT class_index, log_prior FROM {{ c.t.class_params }}{% endcall %}
{%- endmacro %}

{# Every candidate's scoring terms. #}
{% macro terms(candidates, family_template) -%}
{% import family_template as family %}
{% call(c) each_candidate(candidates, "1, 2, 3") %}{{ family.read_params(c.t) }}{% endcall %}
{%- endmacro %}
