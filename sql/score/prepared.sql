{#- Statements planned once on a connection and run again by name on each new input of the
    same shape (DuckDB's PREPARE / EXECUTE / DEALLOCATE). -#}

{# Plan `statement` once, under `name`. #}
{% macro prepare(name, statement) -%}
PREPARE {{ name | ident }} AS
{{ statement }}
{%- endmacro %}

{# Run the statement planned under `name`: no parsing or binding again. #}
{% macro execute(name) -%}
EXECUTE {{ name | ident }}
{%- endmacro %}

{# Free the statement planned under `name`. #}
{% macro deallocate(name) -%}
DEALLOCATE PREPARE {{ name | ident }}
{%- endmacro %}
