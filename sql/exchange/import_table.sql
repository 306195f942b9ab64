-- Load one exported statistics table ({{ role | comment }}) into model {{ model | comment }},
-- rows in the file's order (the order they were stored in, so sums come out the same).
-- Columns exported as text are read back as their recorded type.
{% set select %}
SELECT
{% for c in columns %}
    {% if c.cast %}CAST({{ c.name | ident }} AS {{ c.cast }}){% else %}{{ c.name | ident }}{% endif %} AS {{ c.name | ident }}{{ "," if not loop.last }}
{% endfor %}
{% endset %}
{{ sql.insert_from_parquet(table, columns | map(attribute='name') | map('ident') | list, select, path) }}
