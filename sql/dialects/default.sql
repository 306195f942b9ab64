{#- Statement shapes that differ between engines, dispatched by name: a template writes
    {{ sql.temp_table(name) }} and gets the macro of sql/dialects/<dialect>.sql when that
    file defines it, else this file's. Each macro is the spelling most engines accept. -#}

{#- The head of a statement creating (or replacing) a session-private table from a query. -#}
{% macro temp_table(name) -%}
CREATE OR REPLACE TEMPORARY TABLE {{ name }} AS
{%- endmacro %}

{#- An expression that aborts the statement with ``message`` (a SQL string expression). -#}
{% macro raise_error(message) -%}
raise_error({{ message }})
{%- endmacro %}
