{#- DuckDB's spelling of the statement shapes in sql/dialects/default.sql (only those that
    differ are defined here). -#}

{% macro temp_table(name) -%}
CREATE OR REPLACE TEMP TABLE {{ name }} AS
{%- endmacro %}

{% macro raise_error(message) -%}
error({{ message }})
{%- endmacro %}

{% macro all_except(columns, of='') -%}
{{ of }}* EXCLUDE ({{ columns | join(", ") }})
{%- endmacro %}

{#- isfinite/isinf, not isnan: DuckDB folds isnan(x) to false on Parquet columns whose
    statistics leave NaN out. -#}
{% macro is_number(x) -%}
isfinite({{ x }}) OR isinf({{ x }})
{%- endmacro %}

{#- A hashed lookup: casting to an ENUM of the keys finds the position of ``x`` in one probe
    (a CASE compares it with every key in turn); the position indexes a list of the values.
    With ``constant`` (``missing`` and ``otherwise`` are literals), NULL and unknown keys
    index two more list entries, so the whole position is one expression that DuckDB
    computes once per row even when several lookups (one per class) share ``x`` and
    ``keys``; otherwise the position picks a value or NULL, and COALESCE evaluates the
    fallback (an error, say) only for the rows that need it. -#}
{% macro lookup(x, keys, values, otherwise, missing, constant=false) -%}
{%- set fallback -%}
CASE WHEN {{ x }} IS NULL THEN {{ missing }} ELSE {{ otherwise }} END
{%- endset -%}
{%- set position -%}
enum_code(TRY_CAST({{ x }} AS ENUM({{ keys | join(", ") }}))) + 1
{%- endset -%}
{%- if keys and constant -%}
[{{ (values + [missing, otherwise]) | join(", ") }}][coalesce({{ position }}, CASE WHEN {{ x }} IS NULL THEN {{ keys | length + 1 }} ELSE {{ keys | length + 2 }} END)]
{%- elif keys -%}
coalesce([{{ values | join(", ") }}][{{ position }}], {{ fallback }})
{%- else -%}
{{ fallback }}
{%- endif -%}
{%- endmacro %}

{#- ``lookup`` for a feature's categories as data (``keys`` sorted strings, ``coefs`` the
    class's doubles in their order): the keys are written as one ENUM, the coefficients as
    one constant (a string cast to DOUBLE[]): planning cost does not grow with a literal
    per category. With ``constant``, ``missing_value`` and ``otherwise_value`` are the
    doubles a NULL and an unknown key take. -#}
{% macro lookup_sorted(x, keys, coefs, otherwise, missing, constant=false, missing_value=0.0, otherwise_value=0.0) -%}
{%- set position -%}
enum_code(TRY_CAST({{ x }} AS ENUM({{ keys | lits }}))) + 1
{%- endset -%}
{%- if keys and constant -%}
{{ (coefs + [missing_value, otherwise_value]) | doubles }}[coalesce({{ position }}, CASE WHEN {{ x }} IS NULL THEN {{ keys | length + 1 }} ELSE {{ keys | length + 2 }} END)]
{%- elif keys -%}
coalesce({{ coefs | doubles }}[{{ position }}], CASE WHEN {{ x }} IS NULL THEN {{ missing }} ELSE {{ otherwise }} END)
{%- else -%}
CASE WHEN {{ x }} IS NULL THEN {{ missing }} ELSE {{ otherwise }} END
{%- endif -%}
{%- endmacro %}


{#- ``lookup_sorted``'s position, computed once per row and feature (score/score.sql): 1..n for
    a known key, n + 1 for NULL, n + 2 for any other value. -#}
{% macro category_position(x, keys) -%}
coalesce(enum_code(TRY_CAST({{ x }} AS ENUM({{ keys | lits }}))) + 1, CASE WHEN {{ x }} IS NULL THEN {{ keys | length + 1 }} ELSE {{ keys | length + 2 }} END)
{%- endmacro %}

{#- The sum of the values of list ``coefs`` at the ``size`` positions of list ``index``
    (compiler.coded_positions). On a wide categorical model (100 features, 5 classes) the
    lambda's element access and a dot product with ones measured half the time of
    list_sum(list_select(coefs, index)). -#}
{% macro gathered_sum(coefs, index, size) -%}
list_inner_product(list_transform({{ index }}, lambda __sqlnb_i: {{ coefs }}[__sqlnb_i]), {{ ([1.0] * size) | doubles }})
{%- endmacro %}

{#- ``lookup_sorted`` given that position (a column). -#}
{% macro lookup_position(position, x, keys, coefs, otherwise, missing, constant=false, missing_value=0.0, otherwise_value=0.0) -%}
{%- if constant -%}
{{ (coefs + [missing_value, otherwise_value]) | doubles }}[{{ position }}]
{%- else -%}
coalesce({{ coefs | doubles }}[{{ position }}], CASE WHEN {{ x }} IS NULL THEN {{ missing }} ELSE {{ otherwise }} END)
{%- endif -%}
{%- endmacro %}
