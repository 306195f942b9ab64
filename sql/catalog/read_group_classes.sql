-- Every (group, class) of a per-group model with its index, and the number of classes of
-- the group with the fewest.
{% if what == 'classes' %}
SELECT class_index, class{% for g in t.groups %}, {{ g.column }}{% endfor %}
FROM {{ t.class_params }}
ORDER BY class_index
{% else %}
SELECT min(n_classes), max(n_classes)
FROM (
    SELECT count(*) AS n_classes
    FROM {{ t.class_stats }}
    GROUP BY {% for g in t.groups %}{{ g.column }}{{ ", " if not loop.last }}{% endfor %}
)
{% endif %}
