{#- Statement shapes that differ between engines, dispatched by name: a template writes
    {{ sql.temp_table(name) }} and gets the macro of sql/dialects/<dialect>.sql when that
    file defines it, else this file's. Each macro is the spelling most engines accept. -#}

{#- The head of a statement creating (or replacing) a session-private table from a query. -#}
{% macro temp_table(name) -%}
CREATE OR REPLACE TEMPORARY TABLE {{ name }} AS
{%- endmacro %}

{#- The start of a statement that replaces the rows of the scratch table ``name``, which a
    statement of the same columns made before, with its query's: here the table is made
    again (an engine with temporary tables asks for none of this). -#}
{% macro overwrite_table(name) -%}
CREATE OR REPLACE TEMPORARY TABLE {{ name }} AS
{%- endmacro %}

{#- An expression that aborts the statement with ``message`` (a SQL string expression). -#}
{% macro raise_error(message) -%}
raise_error({{ message }})
{%- endmacro %}

{#- Every column of the relation but ``columns`` (a list of quoted names). -#}
{% macro all_except(columns, of='') -%}
{{ of }}* EXCEPT ({{ columns | join(", ") }})
{%- endmacro %}

{#- A number for each row of a relation, distinct within one statement (a key to join the
    row's own results back to it). -#}
{% macro row_id() -%}
row_number() OVER ()
{%- endmacro %}

{#- Whether the DOUBLE expression ``x`` is a number (not NaN); NULL stays NULL or false. -#}
{% macro is_number(x) -%}
NOT isnan({{ x }})
{%- endmacro %}

{#- Whether the DOUBLE expression ``x`` is infinite. -#}
{% macro is_infinite(x) -%}
isinf({{ x }})
{%- endmacro %}

{#- A FROM-clause item joining each row to the integers 0 .. ``size`` - 1, as the
    column ``alias``.code (it starts with its own comma where the engine needs one). -#}
{% macro codes(size, alias) -%}
,
    LATERAL (SELECT unnest(range(CAST({{ size }} AS BIGINT))) AS code) AS {{ alias }}
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
    (see sql/dialects/spark.sql); here the table is updated in place. ``fresh``: the table
    is a new, empty one (a fit's first write): the rows are simply inserted. -#}
{% macro upsert(table, keys, columns, rows, into=none, fresh=false) -%}
INSERT INTO {{ table }} ({{ (keys + columns) | join(", ") }})
{{ rows | trim }}
{%- if not fresh %}

ON CONFLICT ({{ keys | join(", ") }}) DO UPDATE SET
{% for column in columns %}
    {{ column }} = {{ caller(column, table, "excluded") }}{{ ",\n" if not loop.last }}
{%- endfor %}
{%- endif %}
{%- endmacro %}

{#- Select-list items that turn one row into one row per feature: ``columns`` is a list of
    (name, values) pairs, ``values`` holding one SQL expression per feature (the same
    number in each pair); item i of every list lands in the same output row. -#}
{% macro unpivot(columns) -%}
{% for name, values in columns %}
unnest([{{ values | join(", ") }}]) AS {{ name }}{{ ",\n        " if not loop.last }}
{%- endfor %}
{%- endmacro %}

{#- Whether the DOUBLE expression ``x`` is finite (neither NaN nor infinite). -#}
{% macro is_finite(x) -%}
isfinite({{ x }})
{%- endmacro %}

{#- A column type of the statistics tables, given by its DuckDB name. -#}
{% macro type(name) -%}
{{ name }}
{%- endmacro %}

{#- The key of a statistics table (after its last column), where the engine has keys. -#}
{% macro primary_key(columns) -%}
,
    PRIMARY KEY ({{ columns | join(", ") }})
{%- endmacro %}

{#- Empty a table (the metadata row before it is written again). -#}
{% macro delete_all(table) -%}
DELETE FROM {{ table }}
{%- endmacro %}

{#- The start of a statement (re)creating the view ``name`` as the query that follows it; a
    name marked ``temporary`` (a staged write's scratch parameter views) gets a view of
    the session only. -#}
{% macro create_view(name) -%}
CREATE OR REPLACE {% if name.temporary is defined and name.temporary %}TEMPORARY {% endif %}VIEW {{ name }} AS
{%- endmacro %}

{#- The start of a statement creating ``table`` from the query that follows it. -#}
{% macro create_table_as(table) -%}
CREATE TABLE {{ table }} AS
{%- endmacro %}

{#- Add a column an older layout of a table lacks; one statement, ending with ";". -#}
{% macro add_column(table, column, type) -%}
ALTER TABLE {{ table }} ADD COLUMN IF NOT EXISTS {{ column }} {{ type }};
{%- endmacro %}

{#- A JSON list (text) of ``column``'s values in ``table``, sorted. -#}
{% macro sorted_json_list(column, table) -%}
(SELECT to_json(list({{ column }} ORDER BY {{ column }}))::VARCHAR FROM {{ table }})
{%- endmacro %}

{#- The time of the statement, without a time zone. -#}
{% macro now() -%}
current_timestamp::TIMESTAMP
{%- endmacro %}

{#- Element ``index`` (1-based) of the DOUBLE list ``values`` (SQL literals). -#}
{% macro double_at(values, index) -%}
CAST([{{ values | join(", ") }}] AS DOUBLE[])[{{ index }}]
{%- endmacro %}

{#- Insert into ``table`` the rows ``select`` (a SELECT list, without FROM) reads from the
    Parquet file ``path``, in the file's order; ``columns`` are the (quoted) names. -#}
{% macro insert_from_parquet(table, columns, select, path, where=none) -%}
INSERT INTO {{ table }} BY NAME
{{ select }}FROM read_parquet({{ path | file_lit }}, file_row_number = true)
{% if where %}WHERE {{ where }}
{% endif %}
ORDER BY file_row_number
{%- endmacro %}

{#- Delete the rows of ``table`` where ``condition`` holds. ``into``: see upsert. -#}
{% macro delete_where(table, condition, into=none) -%}
DELETE FROM {{ table }}
WHERE {{ condition }}
{%- endmacro %}

{#- Insert the rows of ``rows`` (a SELECT of the ``keys`` then the ``columns``) whose key
    ``table`` does not hold yet; the others are left out. ``into``: see upsert. -#}
{% macro insert_missing(table, keys, columns, rows, into=none) -%}
INSERT INTO {{ table }} ({{ (keys + columns) | join(", ") }})
{{ rows | trim }}
ON CONFLICT ({{ keys | join(", ") }}) DO NOTHING
{%- endmacro %}

{#- Set ``columns`` of the rows of ``table`` (whose columns are ``all_columns``) to their
    values in ``rows`` (a SELECT of the ``keys`` then the ``columns``), matched by key.
    ``into``: see upsert. -#}
{% macro update(table, keys, columns, rows, all_columns, into=none) -%}
UPDATE {{ table }} AS __old
SET {% for c in columns %}{{ c }} = __new.{{ c }}{{ ", " if not loop.last }}{% endfor +%}
FROM (
{{ rows | trim }}
) AS __new ({{ (keys + columns) | join(", ") }})
WHERE {% for k in keys %}__old.{{ k }} = __new.{{ k }}{{ " AND " if not loop.last }}{% endfor %}
{%- endmacro %}

{#- The value paired with text ``x``: ``values[i]`` when ``x`` equals ``keys[i]`` (distinct
    SQL string literals), ``missing`` when ``x`` is NULL, else ``otherwise``. ``constant``
    says both fallbacks are literals (a dialect may then evaluate them eagerly). -#}
{% macro lookup(x, keys, values, otherwise, missing, constant=false) -%}
CASE WHEN {{ x }} IS NULL THEN {{ missing }} ELSE
{%- if keys %} CASE {{ x }}
{%- for k in keys %} WHEN {{ k }} THEN {{ values[loop.index0] }}{% endfor %} ELSE {{ otherwise }} END
{%- else %} {{ otherwise }}
{%- endif %} END
{%- endmacro %}

{#- ``lookup`` for a feature's categories as data: ``keys`` (sorted strings) and ``coefs``
    (the class's doubles in their order). -#}
{% macro lookup_sorted(x, keys, coefs, otherwise, missing, constant=false, missing_value=0.0, otherwise_value=0.0) -%}
CASE WHEN {{ x }} IS NULL THEN {{ missing }} ELSE
{%- if keys %} CASE {{ x }}
{%- for k in keys %} WHEN {{ k | lit }} THEN {{ coefs[loop.index0] | lit }}{% endfor %} ELSE {{ otherwise }} END
{%- else %} {{ otherwise }}
{%- endif %} END
{%- endmacro %}

{#- The natural logarithm of the non-negative DOUBLE expression ``x``, -inf at zero (as
    NumPy has it: a zero prior, a zero smoothed count). DuckDB 2.0's ln(0) is -inf, earlier
    releases raise an error: the CASE gives -inf on every release, and evaluates ln only
    for the rows it is taken for. -#}
{% macro ln(x) -%}
CASE WHEN ({{ x }}) = 0 THEN CAST('-inf' AS DOUBLE) ELSE ln({{ x }}) END
{%- endmacro %}

{#- The row's position in the relation it is read from, from 0 (in the order of the scan). -#}
{% macro row_index() -%}
row_number() OVER () - 1
{%- endmacro %}

{#- A CTE computed once however often it is read: `name AS {{ sql.materialized() }}(...)`. -#}
{% macro materialized() -%}
MATERIALIZED {% endmacro %}

{#- Appended to the select list of an aggregate that ``materialized`` marks, where reading
    the CTE twice would compute it twice: nothing here. -#}
{% macro read_once() -%}
{%- endmacro %}

{#- Aggregate: the ``k`` (category, share) pairs of largest share over the rows with a
    share above 0, largest first (ties: categories in order, NULL last); NULL without one
    (drift's batch_top and model_top). -#}
{% macro top_shares(category, share, k) -%}
(list({'category': {{ category }}, 'share': {{ share }}} ORDER BY {{ share }} DESC, {{ category }})
            FILTER (WHERE {{ share }} > 0))[1:{{ k }}]
{%- endmacro %}

{#- A NULL list of (category, share) structs (drift's batch_top and model_top). -#}
{% macro no_categories() -%}
CAST(NULL AS STRUCT(category VARCHAR, share DOUBLE)[])
{%- endmacro %}

{#- ---- Lists, as the text analyzer uses them (sql/text/analyzer.sql). -#}

{#- The elements of ``list`` for which ``condition`` (over the variable ``var``) holds. -#}
{% macro list_filter(list, var, condition) -%}
list_filter({{ list }}, lambda {{ var }}: {{ condition }})
{%- endmacro %}

{#- Whether ``x`` is one of ``values`` (SQL text literals). -#}
{% macro in_text_list(x, values) -%}
list_contains([{{ values | join(", ") }}]::VARCHAR[], {{ x }})
{%- endmacro %}

{#- The ``n``-grams of the list ``tokens``: each run of ``n`` consecutive tokens joined by a
    space (the list zipped with its shifted copies: linear in the list's length). -#}
{% macro ngrams(tokens, n) -%}
list_transform(list_zip({{ tokens }}{% for k in range(2, n + 1) %}, {{ tokens }}[{{ k }}:]{% endfor %}, true), lambda g: concat_ws(' '{% for k in range(1, n + 1) %}, g[{{ k }}]{% endfor %}))
{%- endmacro %}

{#- The lists ``lists`` one after another, as one list. -#}
{% macro concat_lists(lists) -%}
flatten([{{ lists | join(", ") }}])
{%- endmacro %}

{#- The distinct elements of ``list`` with their number of occurrences: a list of
    (key, value) structs. -#}
{% macro histogram(list) -%}
map_entries(list_aggr({{ list }}, 'histogram'))
{%- endmacro %}

{#- One row per element of ``list`` (a select-list item). -#}
{% macro unnest(list) -%}
unnest({{ list }})
{%- endmacro %}

{#- The pieces of ``text`` between single spaces (empty pieces included). -#}
{% macro split_spaces(text) -%}
string_split({{ text }}, ' ')
{%- endmacro %}

{#- The head of a statement that replaces ``table`` by the query that follows, which may read
    ``table`` itself: ``{% call sql.rebuild(table, into) %}SELECT …{% endcall %}``. ``into``:
    see ``upsert``. -#}
{% macro rebuild(table, into=none) -%}
CREATE OR REPLACE TABLE {{ table }} AS
{{ caller() }}
{%- endmacro %}

{#- The aggregate list of ``value`` over a group's rows, in the order of ``order``. -#}
{% macro ordered_list(value, order) -%}
list({{ value }} ORDER BY {{ order }})
{%- endmacro %}

{#- One row per term of a text model's vocabulary inlined as a JSON literal ``parameters``
    ({"term": [...], "idf": [...], "coef": [[class 1's], [class 2's]…]}): its term, idf
    and a column per class, named ``coefs``. ``models`` (a per-group text model's every
    vocabulary in one literal): the JSON has a "model" list too, each term's model number,
    read as the column ``model``. -#}
{% macro inlined_terms(parameters, coefs, models=false) -%}
SELECT
{% if models %}
        unnest(p.model) AS model,
{% endif %}
        unnest(p.term) AS term,
        unnest(p.idf) AS idf,
    {% for coef in coefs %}
        unnest(p.coef[{{ loop.index }}]) AS {{ coef }}{{ "," if not loop.last }}
    {% endfor %}
    FROM (
        SELECT from_json({{ parameters | lit }}, {{ ('{' ~ ('"model": "INTEGER[]", ' if models else '') ~ '"term": "VARCHAR[]", "idf": "DOUBLE[]", "coef": "DOUBLE[][]"}') | lit }}) AS p
    )
{%- endmacro %}

{#- The sum of an aggregate's ``value`` in the order of the ``order`` columns (the same
    doubles whatever order the rows arrive in), over the rows where ``condition`` holds. -#}
{% macro ordered_sum(value, order, condition=none) -%}
list_reduce(list({{ value }} ORDER BY {{ order | join(", ") }}){% if condition %} FILTER (WHERE {{ condition }}){% endif %}, lambda a, b: a + b)
{%- endmacro %}

{#- A sum of doubles all but independent of the order of the rows (compensated). -#}
{% macro exact_sum(x) -%}
fsum({{ x }})
{%- endmacro %}

{#- A fit script's (fit/fit_script.sql) lines on how to run it, its start and its end: one
    transaction. -#}
{% macro script_intro(model, action) -%}
-- runs, in order, as one transaction. Run it with any DuckDB client, e.g.
--     duckdb models.duckdb < {{ model | comment }}_{{ action | lower | comment }}.sql
{%- endmacro %}

{% macro script_begin() -%}
BEGIN TRANSACTION;
{%- endmacro %}

{#- A table the script creates, dropped at its start so that it runs again (engines
    that write versions; none here). -#}
{% macro script_replaces(table) -%}
{%- endmacro %}

{% macro script_end() -%}
COMMIT;
{%- endmacro %}
