-- Fold a batch (in the shape of fit/batch_sparse.sql) into term model {{ model | comment }}, or take
-- it out again (sign = -1, forget): class totals are upserted; the class x feature
-- statistics are rebuilt in one pass, old plus (or minus) new, with a row for every known
-- class and feature (absent terms count zero).
{% from 'update/incremental.sql' import signed, added %}
{% set sign = sign | default(1) %}
{% set rows %}
SELECT class, {{ signed('n', sign) }}, {{ signed('weight', sign) }} FROM {{ t.batch }} WHERE feature IS NULL
{% endset %}
{% call(column, old, new) sql.upsert(t.class_stats, ['class'], ['n', 'weight'], rows, t.get('next_class_stats')) -%}
{% if column == 'n' %}{{ old }}.n + {{ new }}.n{% else %}{{ added(old ~ '.' ~ column, new ~ '.' ~ column, sign) }}{% endif %}
{%- endcall %};

{% call sql.rebuild(t.feature_stats, t.get('next_feature_stats')) %}
SELECT
    c.class,
    f.feature,
    coalesce(s.n, 0) {{ '-' if sign < 0 else '+' }} coalesce(b.n, 0) AS n,
    {{ added('coalesce(s.count, 0)', signed('coalesce(b.weight, 0)', sign), sign) }} AS count,
    CAST(NULL AS DOUBLE) AS weight
FROM {{ t.class_stats }} AS c
CROSS JOIN {{ t.features }} AS f
LEFT JOIN {{ t.feature_stats }} AS s ON s.class = c.class AND s.feature = f.feature
LEFT JOIN {{ t.batch }} AS b ON b.class = c.class AND b.feature = f.feature
{%- endcall %};
