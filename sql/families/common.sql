{#- Small expression helpers shared by the family templates. -#}

{# A feature's value as DOUBLE (booleans, integers and decimals included). With the
   `guard` flag (floating-point columns, see sqlnb/missing.py) NaN becomes NULL: a missing
   value that never poisons a sum (the engine's `is_number` test: see sql/dialects/). #}
{% macro num(f) %}{% if f.guard is defined and f.guard %}CASE WHEN {{ sql.is_number('CAST(' ~ f.column ~ ' AS DOUBLE)') }} THEN CAST({{ f.column }} AS DOUBLE) END{% else %}CAST({{ f.column }} AS DOUBLE){% endif %}{% endmacro %}

{# Whether a feature's value is missing: NULL, or NaN when the feature is guarded. #}
{% macro is_missing(f) %}{% if f.guard is defined and f.guard %}{{ num(f) }} IS NULL{% else %}{{ f.column }} IS NULL{% endif %}{% endmacro %}

{# A feature's term of the joint log-likelihood with its missing-value rule: a NULL (or
   NaN) value adds `fallback` when missing = 'ignore' (0, or what undoes the feature's
   share of the class constant), and is an error naming the feature when missing = 'error'. #}
{% macro missing_aware(term, expression, missing, fallback='0') -%}
{% if missing == 'error' %}CASE WHEN {{ is_missing(term) }} THEN {{ sql.raise_error(('missing value (NULL or NaN) in feature ' ~ term.name) | lit) }} ELSE {{ expression }} END{% else %}coalesce({{ expression }}, {{ fallback }}){% endif %}
{%- endmacro %}

{# A Python list of values as a SQL list literal. #}
{% macro list_of(values) %}[{% for v in values %}{{ v | lit }}{{ ", " if not loop.last }}{% endfor %}]{% endmacro %}

{# A SQL list of one batch column per feature, e.g. [c0_n, c1_n]. #}
{% macro columns_of(features, suffix) %}[{% for f in features %}{{ f.alias }}{{ suffix }}{{ ", " if not loop.last }}{% endfor %}]{% endmacro %}

{# Per-group models: the group-key columns of the model's tables, each followed by a comma,
   optionally qualified by a table alias. Nothing at all for an ordinary model. #}
{% macro by_group(t, alias='') %}{% for g in t.get('groups', []) %}{{ alias }}{{ g.column }}, {% endfor %}{% endmacro %}

{# Per-group models: the window clause that keeps each group apart (nothing otherwise). #}
{% macro partition_by_group(t) %}{% if t.get('groups') %}PARTITION BY {% for g in t.groups %}{{ g.column }}{{ ", " if not loop.last }}{% endfor %}{% endif %}{% endmacro %}

{#- A class's joint log-likelihood: its constant plus each feature's term, as the family's
    term_of writes it (explain lists the same terms one by one). #}
{% macro sum_of_terms(c, p, term_of) %}
{{ c.constant | lit }}
{% for term in c.terms %}
        + {{ term_of(term, p) }}
{% endfor %}
{% endmacro %}
