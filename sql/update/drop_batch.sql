-- The batch's helper tables are not needed once it is merged. An update's planned scan
-- keeps its batch table from call to call (`keep_batch`: emptied, not dropped, so the
-- catalog does not change and its planned statements stay planned); on an engine without
-- temporary tables an update leaves it (`leave_batch`: the next update overwrites its
-- rows, the model's drop drops it); a rescan's
-- per-class shifts table goes unless `shifts` is false (none was made).
{% if leave_batch | default(false) %}
{# (an update on an engine without temporary tables: the next one overwrites it) #}
{% elif keep_batch | default(false) %}
DELETE FROM {{ t.batch }};
{% else %}
DROP TABLE IF EXISTS {{ t.batch }};
{% endif %}
{% if shifts | default(true) %}
DROP TABLE IF EXISTS {{ t.shifts }};
{% endif %}
