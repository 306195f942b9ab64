-- Held-out training statistics for the cross-validation of model {{ model | comment }}:
-- the per-group statistics of fold k (its own rows) are replaced by those of every
-- labelled row outside fold k, i.e. the pooled statistics minus the fold's. Parameter
-- views over these tables then describe, per fold, the model fitted without that fold.
{% set fold = t.groups[0].column %}
CREATE OR REPLACE TEMP TABLE {{ training_classes }} AS
WITH folds AS (
    SELECT DISTINCT {{ fold }} FROM {{ t.class_stats }}
)
SELECT k.{{ fold }}, p.class, p.n - coalesce(g.n, 0) AS n, p.weight - coalesce(g.weight, 0) AS weight
FROM {{ pooled.class_stats }} AS p
CROSS JOIN folds AS k
LEFT JOIN {{ t.class_stats }} AS g ON g.{{ fold }} = k.{{ fold }} AND g.class = p.class
WHERE p.n - coalesce(g.n, 0) > 0;

CREATE OR REPLACE TEMP TABLE {{ training_features }} AS
SELECT
    k.{{ fold }},
    p.class,
    p.feature,
{% if kind == 'categories' %}
    p.category,
{% endif %}
    p.n - coalesce(g.n, 0) AS n,
{% if kind == 'moments' %}
    -- the pairwise (Chan) update run backwards: removing the fold's moments
    p.weight - coalesce(g.weight, 0) AS weight,
    CASE WHEN p.weight - coalesce(g.weight, 0) = 0 THEN 0 ELSE
        p.mean + (p.mean - coalesce(g.mean, p.mean)) * coalesce(g.weight, 0) / (p.weight - coalesce(g.weight, 0)) END AS mean,
    CASE WHEN p.weight - coalesce(g.weight, 0) = 0 THEN 0 ELSE greatest(
        p.m2 - coalesce(g.m2, 0)
        - (coalesce(g.mean, p.mean) - p.mean) * (coalesce(g.mean, p.mean) - p.mean)
          * coalesce(g.weight, 0) * p.weight / (p.weight - coalesce(g.weight, 0)), 0) END AS m2,
    CASE WHEN p.n - coalesce(g.n, 0) = 0 THEN 0 ELSE
        p.n_mean + (p.n_mean - coalesce(g.n_mean, p.n_mean)) * coalesce(g.n, 0) / (p.n - coalesce(g.n, 0)) END AS n_mean,
    CASE WHEN p.n - coalesce(g.n, 0) = 0 THEN 0 ELSE greatest(
        p.n_m2 - coalesce(g.n_m2, 0)
        - (coalesce(g.n_mean, p.n_mean) - p.n_mean) * (coalesce(g.n_mean, p.n_mean) - p.n_mean)
          * coalesce(g.n, 0) * p.n / (p.n - coalesce(g.n, 0)), 0) END AS n_m2
{% elif kind == 'categories' %}
    p.count - coalesce(g.count, 0) AS count
{% else %}
    p.count - coalesce(g.count, 0) AS count,
    p.weight - coalesce(g.weight, 0) AS weight
{% endif %}
FROM {{ pooled.feature_stats }} AS p
JOIN {{ training_classes }} AS k ON k.class = p.class
LEFT JOIN {{ t.feature_stats }} AS g
    ON g.{{ fold }} = k.{{ fold }} AND g.class = p.class AND g.feature = p.feature{% if kind == 'categories' %} AND g.category = p.category{% endif %}

{% if kind == 'categories' %}
-- a category seen only in the held-out fold is unknown to that fold's model
WHERE p.n - coalesce(g.n, 0) > 0
{% endif %}
;

DELETE FROM {{ t.feature_stats }};
DELETE FROM {{ t.class_stats }};
INSERT INTO {{ t.class_stats }} BY NAME SELECT * FROM {{ training_classes }};
INSERT INTO {{ t.feature_stats }} BY NAME SELECT * FROM {{ training_features }};
DROP TABLE {{ training_features }};
DROP TABLE {{ training_classes }};
