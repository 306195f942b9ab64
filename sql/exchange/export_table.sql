-- Write one statistics table of model {{ model | comment }} ({{ role | comment }}) to a Parquet
-- file, rows in their stored order (sums over an imported copy then add up in the same
-- order, to the same last bit). Columns of a type Parquet has no plain counterpart for are
-- written as their text (model.json records their type).
{# `parts` (a per-group text model's group models): the same table of each, stacked in one
   file, each row keyed by its group's index (the column group_index, first in `columns`),
   in group order then each table's stored order. #}
{% set parts = parts | default(none) %}
COPY (
    SELECT
{% for c in columns %}
        {% if c.text %}CAST({{ c.name | ident }} AS VARCHAR){% else %}{{ c.name | ident }}{% endif %} AS {{ c.name | ident }}{{ "," if not loop.last }}
{% endfor %}
{% if parts %}
    FROM (
{% for part in parts %}
        SELECT CAST({{ part.index | lit }} AS INTEGER) AS group_index, *, rowid AS __sqlnb_order
        FROM {{ part.table }}
        {{ "UNION ALL" if not loop.last }}
{% endfor %}
    )
    ORDER BY group_index, __sqlnb_order
{% else %}
    FROM {{ table }}
    ORDER BY rowid
{% endif %}
) TO {{ path | lit }} (FORMAT parquet)
