{#- Spark SQL's spelling of the statement shapes in sql/dialects/default.sql (only those
    that differ are defined here). What Spark lacks is written out from what it has. -#}

{#- Spark has no temporary tables: CACHE TABLE materialises a query for the session. -#}
{% macro temp_table(name) -%}
CACHE TABLE {{ name }} AS
{%- endmacro %}

{#- Spark has no lgamma: the Lanczos approximation (g = 7, nine coefficients), within a
    few units in the last place of the C library's lgamma for x >= 0.5 (counts plus one).
    Spark evaluates the repeated argument once (common subexpression elimination). -#}
{% set lanczos = [676.5203681218851, -1259.1392167224028, 771.3234287776531,
                  -176.6150291621406, 12.507343278686905, -0.13857109526572012,
                  9.984369578019572e-06, 1.5056327351493116e-07] %}
{% macro log_gamma(x) -%}
(0.9189385332046727e0 + (({{ x }}) - 0.5e0) * ln(({{ x }}) + 6.5e0) - (({{ x }}) + 6.5e0) + ln(0.9999999999998099e0
{%- for c in lanczos %} + {{ c | lit }} / (({{ x }}) + {{ loop.index - 1 }}.0e0){% endfor %}))
{%- endmacro %}

{% macro as_text(x) -%}
CAST({{ x }} AS STRING)
{%- endmacro %}
