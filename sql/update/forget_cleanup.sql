{% from 'families/common.sql' import list_of, by_group %}
-- After forgetting: a class the batch touched and left without rows disappears (unless it
-- is declared), with its statistics; so do categories left without rows.
{% set emptied %}
n = 0
  AND class IN (SELECT class FROM {{ t.batch }})
{% if keep %}
  AND class NOT IN ({% for c in keep %}{{ c | lit(class_type) }}{{ ", " if not loop.last }}{% endfor %})
{% endif %}
{% endset %}
{{ sql.delete_where(t.class_stats, emptied | trim, t.get('next_class_stats')) }};
{% set orphaned %}
{% if t.get('groups') %}
({{ by_group(t) }}class) NOT IN (SELECT {{ by_group(t) }}class FROM {{ t.class_stats }})
{% else %}
class NOT IN (SELECT class FROM {{ t.class_stats }})
{% endif %}
{% if family_long_batch %}
   OR n = 0
{% endif %}
{% endset %}
{{ sql.delete_where(t.feature_stats, orphaned | trim, t.get('next_feature_stats')) }};
