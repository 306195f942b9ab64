-- Drift of {{ source | comment }} from model {{ model | comment }}: one scan of the source,
-- compared per feature with the model's statistics (pooled over the classes).
{# `parts`: per family part its relations `t`, `method` (the family's drift_method),
   `shape` (its statistics_shape), `p` (its hyperparameters) and `features` (index, name,
   alias, SQL column, guard, origin). Methods:
   - gaussian_kl: KL(batch || model) of two normal laws from the means and variances (each
     variance plus var_smoothing x the largest of the model's, as the model smooths);
   - poisson_kl: KL of two Poisson laws from the mean counts;
   - psi: sum over bins of (b - m) ln(b / m), b and m the batch's and the model's shares,
     each at least `epsilon` in the logarithm; the bins are the model's categories plus
     one for the values it never saw, or (binarize) the values above the threshold and
     the others. #}
{% from 'common.sql' import num %}
{% import 'families/counts.sql' as counts %}
{% set no_top = 'CAST(NULL AS STRUCT(category VARCHAR, share DOUBLE)[])' %}
WITH batch AS MATERIALIZED (
    SELECT
{% for part in parts %}
{% set outer = loop %}
{% for f in part.features %}
{% if part.method == 'psi' and part.shape == 'categories' %}
        histogram({{ sql.as_text(f.column) }}) AS {{ f.alias }}_h{{ "," if not (outer.last and loop.last) }}
{% elif part.method == 'psi' %}
        count({{ num(f) }}) AS {{ f.alias }}_n,
        avg({{ counts.value(f, part.p.binarize) }}) AS {{ f.alias }}_mean,
        CAST(NULL AS DOUBLE) AS {{ f.alias }}_var{{ "," if not (outer.last and loop.last) }}
{% else %}
        count({{ num(f) }}) AS {{ f.alias }}_n,
        avg({{ num(f) }}) AS {{ f.alias }}_mean,
        var_pop({{ num(f) }}) AS {{ f.alias }}_var{{ "," if not (outer.last and loop.last) }}
{% endif %}
{% endfor %}
{% endfor %}
    FROM {{ source }}
)
{% for part in parts %}
{% set i = loop.index %}
{% if part.shape == 'categories' %}
, model_{{ i }} AS (
    SELECT feature, category, CAST(sum(n) AS DOUBLE) AS n
    FROM {{ part.t.feature_stats }}
    GROUP BY feature, category
), batch_{{ i }} AS (
    SELECT f.feature_index, f.feature, unnest(f.cells, recursive := true)
    FROM (
        SELECT unnest([
{% for f in part.features %}
            {'feature_index': {{ f.index }}, 'feature': {{ f.name | lit }}, 'cells': map_entries({{ f.alias }}_h)}{{ "," if not loop.last }}
{% endfor %}
        ]) AS f
        FROM batch
    )
), bins_{{ i }} AS (
    -- the model's categories, and one bin (category NULL) for the values it never saw
    SELECT
        coalesce(b.feature, m.feature) AS feature,
        CASE WHEN m.category IS NOT NULL THEN m.category END AS category,
        coalesce(sum(b.value), 0) AS batch_n,
        coalesce(sum(m.n), 0) AS model_n
    FROM batch_{{ i }} AS b
    FULL OUTER JOIN model_{{ i }} AS m ON b.feature = m.feature AND b.key = m.category
    GROUP BY ALL
), shares_{{ i }} AS (
    SELECT
        feature,
        category,
        batch_n,
        model_n,
        batch_n / nullif(sum(batch_n) OVER (PARTITION BY feature), 0) AS batch_share,
        model_n / nullif(sum(model_n) OVER (PARTITION BY feature), 0) AS model_share
    FROM bins_{{ i }}
), part_{{ i }} AS (
    SELECT
        f.feature_index,
        f.feature,
        'psi' AS method,
        sum((s.batch_share - s.model_share)
            * ln(greatest(s.batch_share, {{ epsilon | lit }}) / greatest(s.model_share, {{ epsilon | lit }}))) AS drift,
        CAST(sum(s.batch_n) AS BIGINT) AS batch_count,
        CAST(NULL AS DOUBLE) AS batch_mean,
        CAST(NULL AS DOUBLE) AS batch_spread,
        CAST(sum(s.model_n) AS BIGINT) AS model_count,
        CAST(NULL AS DOUBLE) AS model_mean,
        CAST(NULL AS DOUBLE) AS model_spread,
        (list({'category': s.category, 'share': s.batch_share} ORDER BY s.batch_share DESC, s.category)
            FILTER (WHERE s.batch_share > 0))[1:{{ top_categories }}] AS batch_top,
        (list({'category': s.category, 'share': s.model_share} ORDER BY s.model_share DESC, s.category)
            FILTER (WHERE s.model_share > 0))[1:{{ top_categories }}] AS model_top
    FROM (VALUES
{% for f in part.features %}
        ({{ f.index }}, {{ f.name | lit }}){{ "," if not loop.last }}
{% endfor %}
    ) AS f (feature_index, feature)
    LEFT JOIN shares_{{ i }} AS s USING (feature)
    GROUP BY f.feature_index, f.feature
)
{% else %}
, model_{{ i }} AS (
{% if part.shape == 'moments' %}
    -- the unweighted moments over every class (n_mean is kept relative to an origin)
    SELECT
        feature,
        sum(n) AS n,
        sum(n * n_mean) / sum(n) AS relative_mean,
        greatest((sum(n_m2) + sum(n * n_mean * n_mean) - sum(n * n_mean) * sum(n * n_mean) / sum(n)) / sum(n), 0) AS var
    FROM {{ part.t.feature_stats }}
    GROUP BY feature
{% else %}
    -- the (weighted) mean of the values over the rows with a value
    SELECT
        s.feature,
        sum(s.n) AS n,
        sum(s.count) / sum({{ counts.feature_weight('s', 'c') }}) AS relative_mean,
        CAST(NULL AS DOUBLE) AS var
    FROM {{ part.t.feature_stats }} AS s
    JOIN {{ part.t.class_stats }} AS c USING (class)
    GROUP BY s.feature
{% endif %}
), batch_{{ i }} AS (
    SELECT unnest([
{% for f in part.features %}
        {'feature_index': {{ f.index }}, 'feature': {{ f.name | lit }}, 'origin': {{ f.origin | lit }}, 'n': {{ f.alias }}_n, 'mean': {{ f.alias }}_mean, 'var': {{ f.alias }}_var}{{ "," if not loop.last }}
{% endfor %}
    ], recursive := true)
    FROM batch
), moments_{{ i }} AS (
    SELECT
        b.feature_index,
        b.feature,
        CAST(b.n AS BIGINT) AS batch_count,
        b.mean AS batch_mean,
        b.var AS batch_var,
        CAST(m.n AS BIGINT) AS model_count,
        b.origin + m.relative_mean AS model_mean,
        m.var AS model_var,
{% if part.method == 'gaussian_kl' %}
        {{ part.p.var_smoothing | lit }} * max(m.var) OVER () AS epsilon
{% else %}
        0.0 AS epsilon
{% endif %}
    FROM batch_{{ i }} AS b
    JOIN model_{{ i }} AS m USING (feature)
), part_{{ i }} AS (
    SELECT
        feature_index,
        feature,
        {{ part.method | lit }} AS method,
        CASE
            WHEN batch_count = 0 THEN NULL
{% if part.method == 'gaussian_kl' %}
            WHEN model_var + epsilon > 0 AND batch_var + epsilon > 0 THEN greatest(0.5 * (
                ln((model_var + epsilon) / (batch_var + epsilon))
                + (batch_var + epsilon + (batch_mean - model_mean) * (batch_mean - model_mean)) / (model_var + epsilon)
                - 1), 0)
            WHEN batch_mean = model_mean AND batch_var = model_var THEN 0
{% elif part.method == 'poisson_kl' %}
            WHEN batch_mean = 0 THEN model_mean
            WHEN model_mean > 0 THEN greatest(batch_mean * ln(batch_mean / model_mean) - batch_mean + model_mean, 0)
{% else %}
            ELSE
                (batch_mean - model_mean) * ln(greatest(batch_mean, {{ epsilon | lit }}) / greatest(model_mean, {{ epsilon | lit }}))
                + (model_mean - batch_mean) * ln(greatest(1 - batch_mean, {{ epsilon | lit }}) / greatest(1 - model_mean, {{ epsilon | lit }}))
{% endif %}
{% if part.method != 'psi' %}
            ELSE CAST('inf' AS DOUBLE)
{% endif %}
        END AS drift,
        batch_count,
        batch_mean,
{% if part.method == 'psi' %}
        sqrt(batch_mean * (1 - batch_mean)) AS batch_spread,
        model_count,
        model_mean,
        sqrt(model_mean * (1 - model_mean)) AS model_spread,
{% else %}
        sqrt(batch_var) AS batch_spread,
        model_count,
        model_mean,
        sqrt(model_var) AS model_spread,
{% endif %}
        {{ no_top }} AS batch_top,
        {{ no_top }} AS model_top
    FROM moments_{{ i }}
)
{% endif %}
{% endfor %}
SELECT feature, method, drift, batch_count, batch_mean, batch_spread, model_count, model_mean,
       model_spread, batch_top, model_top
FROM (
{% for part in parts %}
    SELECT * FROM part_{{ loop.index }}{{ " UNION ALL" if not loop.last }}
{% endfor %}
)
ORDER BY feature_index
