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

{#- Every column of the relation but ``columns`` (a list of quoted names). -#}
{% macro all_except(columns) -%}
* EXCEPT ({{ columns | join(", ") }})
{%- endmacro %}

{#- Whether the DOUBLE expression ``x`` is a number (not NaN); NULL stays NULL or false. -#}
{% macro is_number(x) -%}
NOT isnan({{ x }})
{%- endmacro %}

{#- The natural logarithm of the gamma function (log(n!) = log_gamma(n + 1)). -#}
{% macro log_gamma(x) -%}
lgamma({{ x }})
{%- endmacro %}

{#- ``x`` converted to text, as category values are compared. -#}
{% macro as_text(x) -%}
CAST({{ x }} AS VARCHAR)
{%- endmacro %}
