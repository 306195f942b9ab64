{#- What a text write asks of its source before it reads the documents. -#}

{% macro count_documents(source, target) -%}
-- The labelled documents of a source (only the target column is read).
SELECT count(*) AS n_documents
FROM {{ source }}
WHERE {{ target }} IS NOT NULL
{%- endmacro %}

{% macro class_labels(source, target, limit) -%}
-- The distinct classes of a source (at most {{ limit | comment }}), in sorted order.
SELECT DISTINCT {{ target }} FROM {{ source }} WHERE {{ target }} IS NOT NULL ORDER BY 1 LIMIT {{ limit | lit }}
{%- endmacro %}

{% macro regex_check() -%}
-- Compile a regular expression (the one parameter) with DuckDB's engine (RE2), which
-- refuses some of what Python's `re` accepts (look-around, back-references).
SELECT regexp_extract_all('', ?, 0)
{%- endmacro %}
