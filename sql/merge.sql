-- Fold the batch's statistics into the model's tables: an upsert keyed by class (and
-- feature, category), adding counts and combining moments pairwise.
{% import family_template as family %}
{% from 'common.sql' import by_group %}
INSERT INTO {{ t.class_stats }} ({{ by_group(t) }}class, n, weight)
SELECT {{ by_group(t) }}class, n, weight
FROM {{ t.batch }}
{% if family_long_batch %}
WHERE feature IS NULL
{% endif %}
ON CONFLICT ({{ by_group(t) }}class) DO UPDATE SET
    n = {{ t.class_stats }}.n + excluded.n,
    weight = {{ t.class_stats }}.weight + excluded.weight;

{{ family.merge(t, features, weighted) }}
