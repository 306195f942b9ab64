{#- Small expression helpers shared by the family templates. -#}

{# A feature's value as DOUBLE (booleans, integers and decimals included). #}
{% macro num(f) %}CAST({{ f.column }} AS DOUBLE){% endmacro %}

{# A Python list of values as a SQL list literal. #}
{% macro list_of(values) %}[{% for v in values %}{{ v | lit }}{{ ", " if not loop.last }}{% endfor %}]{% endmacro %}

{# A SQL list of one batch column per feature, e.g. [c0_n, c1_n]. #}
{% macro columns_of(features, suffix) %}[{% for f in features %}{{ f.alias }}{{ suffix }}{{ ", " if not loop.last }}{% endfor %}]{% endmacro %}

{# Per-group models: the group-key columns of the model's tables, each followed by a comma,
   optionally qualified by a table alias. Nothing at all for an ordinary model. #}
{% macro by_group(t, alias='') %}{% for g in t.get('groups', []) %}{{ alias }}{{ g.column }}, {% endfor %}{% endmacro %}

{# Per-group models: the window clause that keeps each group apart (nothing otherwise). #}
{% macro partition_by_group(t) %}{% if t.get('groups') %}PARTITION BY {% for g in t.groups %}{{ g.column }}{{ ", " if not loop.last }}{% endfor %}{% endif %}{% endmacro %}
