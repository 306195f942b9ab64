-- Fold the batch's statistics into the model's tables: an upsert keyed by class (and
-- feature, category), adding counts and combining moments pairwise. With sign = -1
-- (forget) the batch is taken out again by the same update run backwards.
{% import family_template as family %}
{% from 'incremental.sql' import signed, added %}
{% from 'common.sql' import by_group %}
{% set sign = sign | default(1) %}
INSERT INTO {{ t.class_stats }} ({{ by_group(t) }}class, n, weight)
SELECT {{ by_group(t) }}class, {{ signed('n', sign) }}, {{ signed('weight', sign) }}
FROM {{ t.batch }}
{% if family_long_batch %}
WHERE feature IS NULL
{% endif %}
ON CONFLICT ({{ by_group(t) }}class) DO UPDATE SET
    n = {{ t.class_stats }}.n + excluded.n,
    weight = {{ added(t.class_stats ~ '.weight', 'excluded.weight', sign) }};

{{ family.merge(t, features, weighted, sign) }}
