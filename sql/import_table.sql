-- Load one exported statistics table ({{ role | comment }}) into model {{ model | comment }},
-- rows in the file's order (the order they were stored in, so sums come out the same).
-- Columns exported as text are read back as their recorded type.
INSERT INTO {{ table }} BY NAME
SELECT
{% for c in columns %}
    {% if c.cast %}CAST({{ c.name | ident }} AS {{ c.cast }}){% else %}{{ c.name | ident }}{% endif %} AS {{ c.name | ident }}{{ "," if not loop.last }}
{% endfor %}
FROM read_parquet({{ path | lit }}, file_row_number = true)
ORDER BY file_row_number
