{#-
  Helpers for signed upserts: sign = 1 folds statistics into a model (fit, partial_fit,
  merge), sign = -1 takes them out again (forget). Subtraction is the same update with
  negated counts, weights and sums of squares; the result is snapped to exactly zero
  when it is zero up to rounding, so a class whose rows are all forgotten ends at 0.
-#}

{# The batch's value of an additive statistic, negated when forgetting. #}
{% macro signed(column, sign) %}{% if sign < 0 %}-{% endif %}{{ column }}{% endmacro %}

{# old + new for an additive DOUBLE statistic; when forgetting, a rounding residue is 0. #}
{% macro added(old, new, sign) -%}
{% if sign < 0 -%}
(CASE WHEN abs({{ old }} + {{ new }}) <= 1e-12 * abs({{ old }}) THEN 0 ELSE {{ old }} + {{ new }} END)
{%- else -%}
({{ old }} + {{ new }})
{%- endif %}
{%- endmacro %}

{# A sum of squares after a subtraction cannot be negative: clamp the rounding residue.
   Used as {% call non_negative(sign) %}expression{% endcall %}. #}
{% macro non_negative(sign) -%}
{% if sign < 0 %}greatest({{ caller() }}, 0){% else %}{{ caller() }}{% endif %}
{%- endmacro %}
