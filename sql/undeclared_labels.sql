-- Labels of the batch that are not among the declared classes.
{% from 'common.sql' import list_of %}
SELECT DISTINCT class
FROM {{ t.batch }}
WHERE NOT list_contains(CAST({{ list_of(classes) }} AS {{ class_type }}[]), class)
ORDER BY class
