-- Fold a batch (in the shape of batch_sparse.sql) into term model {{ model | comment }}: class
-- totals are upserted; the class x feature statistics are rebuilt in one pass, old plus
-- new, with a row for every known class and feature (absent terms count zero).
{% set rows %}
SELECT class, n, weight FROM {{ t.batch }} WHERE feature IS NULL
{% endset %}
{% call(column, old, new) sql.upsert(t.class_stats, ['class'], ['n', 'weight'], rows, t.get('next_class_stats')) -%}
{{ old }}.{{ column }} + {{ new }}.{{ column }}
{%- endcall %};

CREATE OR REPLACE TABLE {{ t.feature_stats }} AS
SELECT
    c.class,
    f.feature,
    coalesce(s.n, 0) + coalesce(b.n, 0) AS n,
    coalesce(s.count, 0) + coalesce(b.weight, 0) AS count,
    CAST(NULL AS DOUBLE) AS weight
FROM {{ t.class_stats }} AS c
CROSS JOIN {{ t.features }} AS f
LEFT JOIN {{ t.feature_stats }} AS s ON s.class = c.class AND s.feature = f.feature
LEFT JOIN {{ t.batch }} AS b ON b.class = c.class AND b.feature = f.feature;
