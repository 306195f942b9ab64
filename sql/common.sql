{#- Small expression helpers shared by the family templates. -#}

{# A feature's value as DOUBLE (booleans, integers and decimals included). #}
{% macro num(f) %}CAST({{ f.column }} AS DOUBLE){% endmacro %}

{# A Python list of values as a SQL list literal. #}
{% macro list_of(values) %}[{% for v in values %}{{ v | lit }}{{ ", " if not loop.last }}{% endfor %}]{% endmacro %}

{# A SQL list of one batch column per feature, e.g. [c0_n, c1_n]. #}
{% macro columns_of(features, suffix) %}[{% for f in features %}{{ f.alias }}{{ suffix }}{{ ", " if not loop.last }}{% endfor %}]{% endmacro %}
