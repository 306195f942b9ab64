-- Fold the statistics of another model with the same specification into model
-- {{ model | comment }}: the same upserts as a batch, with the other model's tables as input.
{% import family_template as family %}
{% from 'incremental.sql' import signed, added %}
INSERT INTO {{ t.class_stats }} (class, n, weight)
SELECT class, {{ signed('n', sign) }}, {{ signed('weight', sign) }}
FROM {{ source.class_stats }}
ON CONFLICT (class) DO UPDATE SET
    n = {{ t.class_stats }}.n + excluded.n,
    weight = {{ added(t.class_stats ~ '.weight', 'excluded.weight', sign) }};

{{ family.merge_model(t, source, sign) }}
