{#- What list_models reads of the current schema. -#}

{# The tables of the current schema that look like a model's metadata table (named
   <model>_meta, with the columns sqlnb writes). #}
{% macro candidates() -%}
-- Tables of the current schema shaped like a sqlnb model's metadata table.
SELECT t.table_name
FROM duckdb_tables() AS t
WHERE t.database_name = current_database()
  AND t.schema_name = current_schema()
  AND t.table_name LIKE '%\_meta' ESCAPE '\'
  AND (
      SELECT count(*)
      FROM duckdb_columns() AS c
      WHERE c.database_name = t.database_name
        AND c.schema_name = t.schema_name
        AND c.table_name = t.table_name
        AND c.column_name IN ('schema_version', 'model', 'family', 'classes', 'features',
                              'fitted_at')
  ) = 6
ORDER BY t.table_name
{%- endmacro %}

{# Every table of the current schema (a model needs its class table). #}
{% macro tables() -%}
-- The tables of the current schema.
SELECT table_name
FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name = current_schema()
{%- endmacro %}

{# One row per model among them: name, family, classes, training rows and weight,
   features, fitted at, and the relations it records as its own (NULL for a model written
   before that record). #}
{% macro summaries(models) -%}
-- One summary row per model: its metadata and the totals of its class statistics.
{% for m in models %}
{% if not loop.first %}
UNION ALL
{% endif %}
SELECT
    meta.model,
    meta.family,
    meta.target,
    json_array_length(meta.classes) AS n_classes,
    meta.classes,
    json_array_length(meta.features) AS n_features,
    (SELECT sum(n) FROM {{ m.class_stats }}) AS n_rows,
    (SELECT sum(weight) FROM {{ m.class_stats }}) AS weight,
    meta.fitted_at,
    json_extract_string(to_json(meta), '$.relations') AS owns
FROM {{ m.meta }} AS meta
WHERE meta.model = {{ m.name | lit }}
{% endfor %}
ORDER BY 1
{%- endmacro %}
