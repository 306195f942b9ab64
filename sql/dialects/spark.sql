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

{#- Spark has no INSERT ... ON CONFLICT, and refuses MERGE INTO on plain Parquet tables:
    the upsert writes a new table version ``into`` from a full outer join of the stored
    statistics and the incoming rows. A key on one side only keeps that side's values as
    they are (what an insert, or no conflict, leaves); a key on both takes the same update
    expressions as DuckDB's ON CONFLICT DO UPDATE, so both engines compute the same
    doubles. The old table is only read: a failure leaves it as it was. -#}
{% macro upsert(table, keys, columns, rows, into) -%}
CREATE TABLE {{ into }} USING parquet AS
SELECT
{% for key in keys %}
    CASE WHEN __old.__sqlnb_stored THEN __old.{{ key }} ELSE __new.{{ key }} END AS {{ key }},
{% endfor %}
{% for column in columns %}
    CASE WHEN __new.__sqlnb_incoming IS NULL THEN __old.{{ column }}
         WHEN __old.__sqlnb_stored IS NULL THEN __new.{{ column }}
         ELSE {{ caller(column, "__old", "__new") }} END AS {{ column }}{{ "," if not loop.last }}
{% endfor %}
FROM (SELECT *, TRUE AS __sqlnb_stored FROM {{ table }}) AS __old
FULL OUTER JOIN (SELECT *, TRUE AS __sqlnb_incoming FROM (
{{ rows }}
) AS __rows ({{ (keys + columns) | join(", ") }})) AS __new
ON {% for key in keys %}__old.{{ key }} <=> __new.{{ key }}{{ " AND " if not loop.last }}{% endfor %}
{%- endmacro %}
