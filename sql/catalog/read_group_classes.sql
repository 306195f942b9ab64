{# Every (group, class) of a per-group model with its index. #}
{% macro classes(t) -%}
-- Every (group, class) of a per-group model with its index.
SELECT class_index, class{% for g in t.groups %}, {{ g.column }}{% endfor %}
FROM {{ t.class_params }}
ORDER BY class_index
{%- endmacro %}

{# The number of classes of the group with the fewest, and of the one with the most. #}
{% macro sizes(t) -%}
-- The fewest and the most classes a group of the model has.
SELECT min(n_classes), max(n_classes)
FROM (
    SELECT count(*) AS n_classes
    FROM {{ t.class_stats }}
    GROUP BY {% for g in t.groups %}{{ g.column }}{{ ", " if not loop.last }}{% endfor %}
)
{%- endmacro %}
