{#- Spark SQL's spelling of the statement shapes in sql/dialects/default.sql (only those
    that differ are defined here). What Spark lacks is written out from what it has. -#}

{#- Spark has no temporary tables, and a CACHE TABLE view is re-resolved by name (the
    shifts read the batch, which a rescan replaces): a small Parquet table, dropped when
    the batch is merged (sql/update/drop_batch.sql) or by the next write of the same model
    (an update leaves it for the next one: see overwrite_table). -#}
{% macro temp_table(name) -%}
DROP TABLE IF EXISTS {{ name }};
CREATE TABLE {{ name }} USING parquet AS
{%- endmacro %}

{#- The rows of the scratch table an update's earlier scan of the same columns left (see
    Pipeline.scan): replaced in one statement, the table kept. By name, so that a table of
    other columns is an error (the caller then makes the table again), never a mix. -#}
{% macro overwrite_table(name) -%}
INSERT OVERWRITE TABLE {{ name }} BY NAME
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

{#- Spark refuses a window without ORDER BY; monotonically_increasing_id() numbers rows
    without a shuffle (not contiguously). It is non-deterministic, so Spark does not inline
    a CTE holding it that is read twice: both reads see the same numbers. -#}
{% macro row_id() -%}
monotonically_increasing_id()
{%- endmacro %}

{% macro as_text(x) -%}
CAST({{ x }} AS STRING)
{%- endmacro %}

{#- Spark has no INSERT ... ON CONFLICT, and refuses MERGE INTO on plain Parquet tables:
    the upsert writes a new table version ``into`` from a full outer join of the stored
    statistics and the incoming rows. A key on one side only keeps that side's values as
    they are (what an insert, or no conflict, leaves); a key on both takes the same update
    expressions as DuckDB's ON CONFLICT DO UPDATE, so both engines compute the same
    doubles. The new table then takes the old one's name (the old one is dropped): a model's
    tables on Spark are new versions of its own, not yet read by anyone (see
    SparkEngine.stage), so replacing them is safe; a failure before the rename leaves the
    old table as it was. Where ``into`` is itself the write's new version of the table
    (``into.creates_version``: ``table`` is then the current version, which stays as it
    is), the one statement is all: an update builds its version from (old ⟗ batch). A
    ``fresh`` table (a fit's new, empty version) simply gets the rows inserted. -#}
{% macro replaced(table, into) -%}
{%- if not (into.creates_version is defined and into.creates_version) %};
DROP TABLE {{ table }};
ALTER TABLE {{ into }} RENAME TO {{ table }}
{%- endif %}
{%- endmacro %}

{% macro upsert(table, keys, columns, rows, into, fresh=false) -%}
{% if fresh -%}
INSERT INTO {{ table }} ({{ (keys + columns) | join(", ") }})
{{ rows | trim }}
{%- else -%}
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
{{- replaced(table, into) }}
{%- endif %}
{%- endmacro %}

{#- Several explode() in one SELECT are cross-joined, not zipped: one inline() of an array
    of structs, one struct per feature, gives the zipped rows. -#}
{% macro unpivot(columns) -%}
inline(array(
{%- for i in range(columns[0][1] | length) %}
named_struct({% for name, values in columns %}{{ name | lit }}, {{ values[i] }}{{ ", " if not loop.last }}{% endfor %}){{ ",\n        " if not loop.last }}
{%- endfor %}))
{%- endmacro %}

{#- Spark has no isfinite. -#}
{% macro is_finite(x) -%}
(NOT isnan({{ x }}) AND abs({{ x }}) < double('inf'))
{%- endmacro %}

{% macro is_infinite(x) -%}
abs({{ x }}) = double('inf')
{%- endmacro %}

{#- size >= 1 here: sequence(0, -1) would count down. -#}
{% macro codes(size, alias) -%}
LATERAL VIEW explode(sequence(CAST(0 AS BIGINT), CAST({{ size }} AS BIGINT) - 1)) {{ alias }} AS code
{%- endmacro %}

{% set spark_types = {'VARCHAR': 'STRING', 'INTEGER': 'INT', 'TIMESTAMP': 'TIMESTAMP_NTZ',
                      'HUGEINT': 'DECIMAL(38,0)'} %}
{% macro type(name) -%}
{{ spark_types.get(name, name) }}
{%- endmacro %}

{#- Spark tables have no keys: the upsert's join finds the rows of a key. -#}
{% macro primary_key(columns) -%}
{%- endmacro %}

{% macro delete_all(table) -%}
TRUNCATE TABLE {{ table }}
{%- endmacro %}

{% macro create_table_as(table) -%}
CREATE TABLE {{ table }} USING parquet AS
{%- endmacro %}

{#- A model on Spark is never of an older layout. -#}
{% macro add_column(table, column, type) -%}
{%- endmacro %}

{% macro sorted_json_list(column, table) -%}
(SELECT to_json(array_sort(collect_list({{ column }}))) FROM {{ table }})
{%- endmacro %}

{% macro now() -%}
CAST(current_timestamp() AS TIMESTAMP_NTZ)
{%- endmacro %}

{% macro double_at(values, index) -%}
element_at(array({% for v in values %}CAST({{ v }} AS DOUBLE){{ ", " if not loop.last }}{% endfor %}), {{ index }})
{%- endmacro %}

{#- Spark reads a file as a table named by its path; a statistics table's sums do not
    depend on its rows' order on disk. -#}
{% macro insert_from_parquet(table, columns, select, path, where=none) -%}
INSERT INTO {{ table }} ({{ columns | join(", ") }})
{{ select }}FROM parquet.{{ path | ident }}
{%- if where %}

WHERE {{ where }}
{%- endif %}
{%- endmacro %}

{#- Spark has no DELETE, UPDATE or ON CONFLICT on plain tables: each writes the table's
    new contents to ``into``, which then takes the table's name (as the upsert does; the
    tables a write changes are its own new versions). -#}
{% macro delete_where(table, condition, into) -%}
CREATE TABLE {{ into }} AS
SELECT * FROM {{ table }}
WHERE NOT coalesce({{ condition }}, FALSE)
{{- replaced(table, into) }}
{%- endmacro %}

{% macro insert_missing(table, keys, columns, rows, into) -%}
CREATE TABLE {{ into }} AS
SELECT {{ (keys + columns) | join(", ") }} FROM {{ table }}
UNION ALL
SELECT __new.* FROM (
{{ rows | trim }}
) AS __new ({{ (keys + columns) | join(", ") }})
LEFT ANTI JOIN {{ table }} AS __old
ON {% for k in keys %}__old.{{ k }} <=> __new.{{ k }}{{ " AND " if not loop.last }}{% endfor %}
{{- replaced(table, into) }}
{%- endmacro %}

{% macro update(table, keys, columns, rows, all_columns, into) -%}
CREATE TABLE {{ into }} AS
SELECT
{% for c in all_columns %}
    {% if c in columns %}CASE WHEN __new.__sqlnb_found THEN __new.{{ c }} ELSE __old.{{ c }} END{% else %}__old.{{ c }}{% endif %} AS {{ c }}{{ "," if not loop.last }}
{% endfor %}
FROM {{ table }} AS __old
LEFT JOIN (SELECT *, TRUE AS __sqlnb_found FROM (
{{ rows | trim }}
) AS __rows ({{ (keys + columns) | join(", ") }})) AS __new
ON {% for k in keys %}__old.{{ k }} = __new.{{ k }}{{ " AND " if not loop.last }}{% endfor %}
{{- replaced(table, into) }}
{%- endmacro %}

{#- Spark's ln(0) is NULL, and stays so. -#}
{% macro ln(x) -%}
ln({{ x }})
{%- endmacro %}

{#- Spark numbers rows only over an ordered window: the order of the scan's ids. -#}
{% macro row_index() -%}
row_number() OVER (ORDER BY monotonically_increasing_id()) - 1
{%- endmacro %}

{#- Spark decides itself whether a CTE read twice is computed once: it inlines a
    deterministic one at every read (each then scans its source), and computes a
    non-deterministic one once, for all its reads. -#}
{% macro materialized() -%}
{% endmacro %}

{#- An aggregate column that makes the CTE non-deterministic, so that Spark computes it
    once however often it is read (see ``materialized``); no statement reads it. -#}
{% macro read_once() -%}
, rand() AS __sqlnb_read_once
{%- endmacro %}

{#- Spark sorts the collected structs by their fields: the share negated (largest first),
    then a NULL category last, then the category. -#}
{% macro top_shares(category, share, k) -%}
CASE WHEN max({{ share }}) > 0 THEN slice(transform(array_sort(collect_list(CASE WHEN {{ share }} > 0 THEN named_struct('o', -{{ share }}, 'u', {{ category }} IS NULL, 'c', {{ category }}, 's', {{ share }}) END)),
            x -> named_struct('category', x.c, 'share', x.s)), 1, {{ k }}) END
{%- endmacro %}

{% macro no_categories() -%}
CAST(NULL AS ARRAY<STRUCT<category: STRING, share: DOUBLE>>)
{%- endmacro %}

{#- ---- Lists (Spark's arrays), as the text analyzer uses them. -#}
{% macro list_filter(list, var, condition) -%}
filter({{ list }}, {{ var }} -> {{ condition }})
{%- endmacro %}

{% macro in_text_list(x, values) -%}
array_contains(array({{ values | join(", ") }}), {{ x }})
{%- endmacro %}

{#- Spark has no list_zip: element i of the n-grams is the slice of n tokens from i (the
    last n - 1 positions have none, and are filtered out). -#}
{% macro ngrams(tokens, n) -%}
filter(transform({{ tokens }}, (__sqlnb_t, __sqlnb_i) -> CASE WHEN __sqlnb_i + {{ n }} <= size({{ tokens }}) THEN concat_ws(' ', slice({{ tokens }}, __sqlnb_i + 1, {{ n }})) END), __sqlnb_g -> __sqlnb_g IS NOT NULL)
{%- endmacro %}

{% macro concat_lists(lists) -%}
concat({{ lists | join(", ") }})
{%- endmacro %}

{#- Spark has no histogram of an array: each distinct element with the size of the array
    filtered to it (quadratic in a document's distinct terms, which stay few). -#}
{% macro histogram(list) -%}
transform(array_distinct({{ list }}), __sqlnb_k -> named_struct('key', __sqlnb_k, 'value', CAST(size(filter({{ list }}, __sqlnb_x -> __sqlnb_x = __sqlnb_k)) AS BIGINT)))
{%- endmacro %}

{% macro unnest(list) -%}
explode({{ list }})
{%- endmacro %}

{#- Spark's split takes a regular expression: a space is one. -#}
{% macro split_spaces(text) -%}
split({{ text }}, ' ', -1)
{%- endmacro %}

{#- Spark cannot replace a table by a query reading it: the query goes to ``into``, which
    then takes the table's name (see ``replaced``). -#}
{% macro rebuild(table, into) -%}
CREATE TABLE {{ into }} AS
{{ caller() }}
{{- replaced(table, into) }}
{%- endmacro %}

{#- collect_list's order is not defined: the (order, value) pairs are sorted. -#}
{% macro ordered_list(value, order) -%}
transform(array_sort(collect_list(named_struct('o', {{ order }}, 'v', {{ value }}))), __sqlnb_e -> __sqlnb_e.v)
{%- endmacro %}

{#- Spark's JSON reader takes a DDL schema; each term's position picks its idf and
    coefficients (several explode() would cross-join). Non-finite numbers come as the
    strings "Infinity", "-Infinity" and "NaN", which the reader takes for doubles. -#}
{% macro inlined_terms(parameters, coefs, models=false) -%}
SELECT
{% if models %}
        element_at(p.model, __sqlnb_i) AS model,
{% endif %}
        element_at(p.term, __sqlnb_i) AS term,
        element_at(p.idf, __sqlnb_i) AS idf,
    {% for coef in coefs %}
        element_at(element_at(p.coef, {{ loop.index }}), __sqlnb_i) AS {{ coef }}{{ "," if not loop.last }}
    {% endfor %}
    FROM (
        SELECT from_json({{ parameters | lit }}, '{{ "model ARRAY<INT>, " if models }}term ARRAY<STRING>, idf ARRAY<DOUBLE>, coef ARRAY<ARRAY<DOUBLE>>') AS p
    ) AS __sqlnb_p
    LATERAL VIEW explode(sequence(1, size(p.term))) __sqlnb_terms AS __sqlnb_i
{%- endmacro %}

{#- The (order, value) pairs sorted, then added up from zero (0 + x is x exactly). -#}
{% macro ordered_sum(value, order, condition=none) -%}
aggregate(transform(array_sort(collect_list(named_struct('o', struct({{ order | join(", ") }}), 'v', CAST({{ value }} AS DOUBLE))){% if condition %} FILTER (WHERE {{ condition }}){% endif %}), __sqlnb_e -> __sqlnb_e.v), CAST(0 AS DOUBLE), (__sqlnb_a, __sqlnb_b) -> __sqlnb_a + __sqlnb_b)
{%- endmacro %}

{#- Spark has no compensated sum: a plain one (its rounding depends on the rows' order). -#}
{% macro exact_sum(x) -%}
sum({{ x }})
{%- endmacro %}

{#- A fit script on Spark: no transaction. Its write stages new table versions and
    switches the model's views to them at its end, as a Python write does. -#}
{% macro script_intro(model, action) -%}
-- runs, in order (Spark SQL has no transactions: the new table versions are switched to
-- at the end). Run it with spark-sql, or from Python with sqlnb.script.run(spark, script):
--     spark-sql -f {{ model | comment }}_{{ action | lower | comment }}.sql
{%- endmacro %}

{% macro script_begin() -%}
{%- endmacro %}

{#- Run again (a scheduler's next fit), the script writes the versions it wrote before:
    they are dropped first. -#}
{% macro script_replaces(table) -%}
DROP TABLE IF EXISTS {{ table }};
{%- endmacro %}

{% macro script_end() -%}
{%- endmacro %}
