-- The groups of per-group text model {{ model | comment }}: index, then the group values.
SELECT group_index{% for g in groups %}, {{ g.column }}{% endfor %}

FROM {{ table }}
ORDER BY group_index
