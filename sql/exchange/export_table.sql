-- Write one statistics table of model {{ model | comment }} ({{ role | comment }}) to a Parquet
-- file, rows in their stored order (sums over an imported copy then add up in the same
-- order, to the same last bit). Columns of a type Parquet has no plain counterpart for are
-- written as their text (model.json records their type).
COPY (
    SELECT
{% for c in columns %}
        {% if c.text %}CAST({{ c.name | ident }} AS VARCHAR){% else %}{{ c.name | ident }}{% endif %} AS {{ c.name | ident }}{{ "," if not loop.last }}
{% endfor %}
    FROM {{ table }}
    ORDER BY rowid
) TO {{ path | lit }} (FORMAT parquet)
