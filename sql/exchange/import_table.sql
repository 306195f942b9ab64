-- Load one exported statistics table ({{ role | comment }}) into model {{ model | comment }},
-- rows in the file's order (the order they were stored in, so sums come out the same).
-- Columns exported as text are read back as their recorded type.
{# `group_index` (a per-group text model's stacked file): that group's rows only, without
   the column that keys them. #}
{% set group_index = group_index | default(none) %}
{% set select %}
SELECT
{% for c in columns %}
    {% if c.cast %}CAST({{ c.name | ident }} AS {{ c.cast }}){% else %}{{ c.name | ident }}{% endif %} AS {{ c.name | ident }}{{ "," if not loop.last }}
{% endfor %}
{% endset %}
{{ sql.insert_from_parquet(table, columns | map(attribute='name') | map('ident') | list, select, path,
                           none if group_index is none else 'group_index = ' ~ (group_index | lit)) }}
