-- How model {{ model | comment }} reads its input; no row for a column model. The table is
-- looked up in the catalog first: a failed lookup would abort an open transaction.
{% if what == 'exists' %}
SELECT count(*) FROM duckdb_tables()
WHERE lower(table_name) = lower({{ analyzer_name | lit }}) AND database_name = current_database()
    AND schema_name = current_schema()
{% else %}
SELECT input, options, n_documents FROM {{ t.analyzer }}
{% endif %}
