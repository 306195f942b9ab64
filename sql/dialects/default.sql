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

{#- Fold ``rows`` (a SELECT of the ``keys`` then the ``columns``, in that order) into the
    statistics table ``table``: a key the table lacks is inserted as it comes, a key it has
    takes, for each column, the expression ``caller(column, old, new)``, where ``old`` and
    ``new`` name the stored row and the incoming one. Called as
    {% call(column, old, new) sql.upsert(table, keys, columns, rows, into) %}…{% endcall %}.
    ``into`` is where the result goes on engines that write a new table version instead
    (see sql/dialects/spark.sql); here the table is updated in place. -#}
{% macro upsert(table, keys, columns, rows, into=none) -%}
INSERT INTO {{ table }} ({{ (keys + columns) | join(", ") }})
{{ rows | trim }}
ON CONFLICT ({{ keys | join(", ") }}) DO UPDATE SET
{% for column in columns %}
    {{ column }} = {{ caller(column, table, "excluded") }}{{ ",\n" if not loop.last }}
{%- endfor %}
{%- endmacro %}
