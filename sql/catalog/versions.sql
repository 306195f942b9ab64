{#-
  The statements of versioned writes, for engines without upserts or transactions (Spark):
  a write creates the table `<name>__v<k>`, then one view `<name>` is switched to it, and
  older versions are dropped. `table` and `view` arrive quoted by the dialect; so do
  `into` and `database`.
-#}

{# A query whose plan gives a relation's column names and types. #}
{% macro columns(table) -%}
SELECT * FROM {{ table }}
{%- endmacro %}

{# The definition of a view (which version it reads). #}
{% macro show(table) -%}
SHOW CREATE TABLE {{ table }}
{%- endmacro %}

{# Point the view at a version, in one statement. #}
{% macro switch(view, table) -%}
CREATE OR REPLACE VIEW {{ view }} AS SELECT * FROM {{ table }}
{%- endmacro %}

{# Drop one version. #}
{% macro drop(table) -%}
DROP TABLE IF EXISTS {{ table }}
{%- endmacro %}

{# A new version `into` holding the rows of `table` (an update's start). #}
{% macro copy(into, table) -%}
CREATE TABLE {{ into }} AS SELECT * FROM {{ table }}
{%- endmacro %}

{# Drop the view `table` (a staged write's scratch parameter views). #}
{% macro drop_view(table) -%}
DROP VIEW IF EXISTS {{ table }}
{%- endmacro %}

{# The names in `database`: tables, views (temporary ones too), SQL functions (and
   temporary ones). #}
{% macro tables(database) -%}
SHOW TABLES IN {{ database }}
{%- endmacro %}

{% macro views(database) -%}
SHOW VIEWS IN {{ database }}
{%- endmacro %}

{% macro functions(database) -%}
SHOW USER FUNCTIONS IN {{ database }}
{%- endmacro %}

{# Several small reads in one statement (an engine that runs one statement per call at a
   fixed cost): each query's rows as one array of structs, a column each, every row
   numbered first in the query's order (the caller sorts by it). #}
{# Every row of a table (read with others, see `together`). #}
{% macro rows(table) -%}
SELECT * FROM {{ table }}
{%- endmacro %}

{# A local copy of a table read from the engine (DuckDB: `source` is a registered Arrow
   table). #}
{% macro local_copy(table, source) -%}
CREATE TABLE {{ table }} AS SELECT * FROM {{ source }}
{%- endmacro %}

{% macro together(queries) -%}
-- Several reads at once, each query's rows gathered in one column.
SELECT
{%- for query in queries %}
    (SELECT collect_list(struct(*)) FROM (SELECT monotonically_increasing_id() AS __sqlnb_row, __q.*
     FROM (
{{ query }}
     ) AS __q) AS __r) AS __sqlnb_read_{{ loop.index }}{{ "," if not loop.last }}
{%- endfor %}
{%- endmacro %}

{# Drop a SQL function (what a dry run created, see SparkEngine.rolled_back). #}
{% macro drop_function(table) -%}
DROP FUNCTION IF EXISTS {{ table }}
{%- endmacro %}
