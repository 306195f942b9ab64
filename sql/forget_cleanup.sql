{% from 'common.sql' import list_of %}
-- After forgetting: a class the batch touched and left without rows disappears (unless it
-- is declared), with its statistics; so do categories left without rows.
DELETE FROM {{ t.class_stats }}
WHERE n = 0
  AND class IN (SELECT class FROM {{ t.batch }})
{% if keep %}
  AND NOT list_contains(CAST({{ list_of(keep) }} AS {{ class_type }}[]), class)
{% endif %}
;
DELETE FROM {{ t.feature_stats }}
WHERE class NOT IN (SELECT class FROM {{ t.class_stats }})
{% if family_long_batch %}
   OR n = 0
{% endif %}
;
