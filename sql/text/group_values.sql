-- The groups of a per-group text model {{ model | comment }}: the distinct values of the group
-- columns over the labelled documents, without NULL (a NULL group is scored by the pooled
-- model), in sorted order.
SELECT DISTINCT {% for g in groups %}{{ g.column }}{{ ", " if not loop.last }}{% endfor %}

FROM {{ source }}
WHERE {{ target }} IS NOT NULL
{% for g in groups %}
  AND {{ g.column }} IS NOT NULL
{% endfor %}
ORDER BY {% for g in groups %}{{ g.column }}{{ ", " if not loop.last }}{% endfor %}
