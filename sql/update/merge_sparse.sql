-- Fold a sparse batch into the model: class totals, then every class x feature cell
-- (features with no entry in the batch add zero). With sign = -1 (forget) the batch is
-- subtracted instead.
{% import 'families/counts.sql' as counts %}
{% from 'update/incremental.sql' import signed, added %}
{% set sign = sign | default(1) %}
{% set rows %}
SELECT class, {{ signed('n', sign) }}, {{ signed('weight', sign) }} FROM {{ t.batch }} WHERE feature IS NULL
{% endset %}
{% call(column, old, new) sql.upsert(t.class_stats, ['class'], ['n', 'weight'], rows, t.get('next_class_stats')) -%}
{% if column == 'n' %}{{ old }}.n + {{ new }}.n{% else %}{{ added(old ~ '.weight', new ~ '.weight', sign) }}{% endif %}
{%- endcall %};

{% set cells %}
SELECT c.class, f.feature, coalesce(b.n, 0) AS n, coalesce(b.weight, 0) AS count,
       CAST(NULL AS DOUBLE) AS weight  -- per-feature weight: the class weight (no missing cells)
FROM (SELECT class FROM {{ t.batch }} WHERE feature IS NULL) AS c
CROSS JOIN {{ t.features }} AS f
LEFT JOIN {{ t.batch }} AS b ON b.class = c.class AND b.feature = f.feature
{% endset %}
{{ counts.upsert(t, cells, sign) }}
