{#- Sums over the classes, as balanced trees of additions. A chain `a + b + c + …` nests
    one level per term, and DuckDB limits how deep an expression may nest (1,000 by
    default): a model with 1,000 classes would exceed it. Split in halves, the depth grows
    with the logarithm of the number of classes instead. -#}

{# exp(jll - __sqlnb_max) summed over the classes; `coalesced` counts a NULL term (a class
   the row's group never saw) as 0. #}
{% macro sum_exp(jlls, coalesced=False) -%}
{% if jlls | length <= 16 -%}
{% for jll in jlls %}{% if coalesced %}coalesce(exp({{ jll }} - __sqlnb_max), 0){% else %}exp({{ jll }} - __sqlnb_max){% endif %}{{ " + " if not loop.last }}{% endfor %}
{%- else -%}
{% set half = jlls | length // 2 %}({{ sum_exp(jlls[:half], coalesced) }}) + ({{ sum_exp(jlls[half:], coalesced) }})
{%- endif %}
{%- endmacro %}
