-- The type names a table of model {{ model | comment }} records (its features' or its group
-- columns'), as DuckDB spells them: run on the private DuckDB copy an export of a model
-- fitted on Spark is written from, so the files speak DuckDB's names as model.json does.
UPDATE {{ table }} SET type = CASE type
{% for found, portable in types %}
    WHEN {{ found | lit }} THEN {{ portable | lit }}
{% endfor %}
    ELSE type END
