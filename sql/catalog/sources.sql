{#- A user's source: the FROM-clause fragment that reads it, and what sqlnb asks of it
    before a statement reads its rows. -#}
{% from 'families/common.sql' import list_of %}

{# The FROM-clause fragment for a source: files read in place by `reader`, or a named
   relation. #}
{% macro from_clause(paths, reader=none, name=none) -%}
{% if paths %}{{ reader }}({% if paths | length == 1 %}{{ paths[0] | lit }}{% else %}{{ list_of(paths) }}{% endif %}){% else %}{{ name | qualified }}{% endif %}
{%- endmacro %}

{% macro describe(source) -%}
-- Column names and types of a source, without reading its rows.
DESCRIBE SELECT * FROM {{ source }}
{%- endmacro %}

{% macro info(source, target) -%}
-- How many rows the source has, and how many of them have a target.
SELECT count(*) AS n_rows, count({{ target }}) AS n_labelled FROM {{ source }}
{%- endmacro %}

{% macro rows(source) -%}
-- How many rows the source has (its labelled rows are counted by the scan): a count of
-- no column, which reads none (Spark counts a Parquet file's rows from its row groups).
SELECT count(*) AS n_rows FROM {{ source }}
{%- endmacro %}

{# The rows of Parquet files, from their footers (no row is read): what "auto" scoring asks
   of a Parquet source before choosing its statement. #}
{% macro parquet_rows(paths) -%}
-- The number of rows of these Parquet files, from their footers.
SELECT sum(num_rows) FROM parquet_file_metadata({{ list_of(paths) }})
{%- endmacro %}
