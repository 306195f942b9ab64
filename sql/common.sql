{#- Small expression helpers shared by the family templates. -#}

{# A feature's value as DOUBLE (booleans, integers and decimals included). #}
{% macro num(f) %}CAST({{ f.column }} AS DOUBLE){% endmacro %}

{# A Python list of values as a SQL list literal. #}
{% macro list_of(values) %}[{% for v in values %}{{ v | lit }}{{ ", " if not loop.last }}{% endfor %}]{% endmacro %}

{# A SQL list of one batch column per feature, e.g. [c0_n, c1_n]. #}
{% macro columns_of(features, suffix) %}[{% for f in features %}{{ f.alias }}{{ suffix }}{{ ", " if not loop.last }}{% endfor %}]{% endmacro %}

{# The terms of a sum, each rendered by the caller (with its leading + or -). Past `size`
   terms they are summed in parenthesised groups: a chain of thousands of binary operators
   exceeds DuckDB's expression depth limit (1,000), and wide models have that many. #}
{% macro sum_of(terms, size=256) %}
{% if terms | length <= size %}
{% for term in terms %}
        {{ caller(term) }}
{% endfor %}
{% else %}
{% for group in terms | batch(size) %}
        + (0
    {% for term in group %}
            {{ caller(term) }}
    {% endfor %}
        )
{% endfor %}
{% endif %}
{% endmacro %}
