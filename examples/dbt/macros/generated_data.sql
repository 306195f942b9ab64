{#- Repeatable pseudo-random numbers for the generated example data: the same key and salt
    give the same number on every run, so the example's results do not move. -#}

{% macro uniform(key, salt) -%}
    ((hash({{ key }}, '{{ salt }}') % 1000003 + 1) / 1000004.0)
{%- endmacro %}

{% macro normal(key, salt, mean, sd) -%}
    ({{ mean }} + {{ sd }} * sqrt(-2 * ln({{ uniform(key, salt ~ '_r') }}))
                  * cos(2 * pi() * {{ uniform(key, salt ~ '_t') }}))
{%- endmacro %}
