-- Labels of the batch that are not among the declared classes.
{% from 'families/common.sql' import list_of %}
SELECT DISTINCT class
FROM {{ t.batch }}
WHERE class NOT IN ({% for c in classes %}{{ c | lit(class_type) }}{{ ", " if not loop.last }}{% endfor %})
ORDER BY class
