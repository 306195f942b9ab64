-- Drift of {{ source | comment }} from model {{ model | comment }}: one scan of the source,
-- compared per feature with the model's statistics (pooled over the classes{{ ", and per class" if target }}).
{# `parts`: per family part its relations `t`, `method` (the family's drift_method),
   `shape` (its statistics_shape), `p` (its hyperparameters) and `features` (index, name,
   alias, SQL column, guard, origin). `target`: the source's label column (quoted), for
   one more row per feature and class, each class's rows against the model's statistics
   of that class (None: the pooled rows only). `quantiles`: the standard normal's
   quantiles at 1/k ... (k-1)/k for Gaussian features' PSI over k bins (empty: no bins).
   `category_sets`: count categories by one grouping set per categorical feature (engines
   without DuckDB's histogram and lists of structs) rather than a histogram each. The
   batch's moments are sums (count, sum, sum of squares) in the one aggregate, a Gaussian
   feature's taken around its origin (near the data) as the fit takes them around a
   shift; without bins the scan reads the source alone. Methods:
   - gaussian_kl: KL(batch || model) of two normal laws from the means and variances (each
     variance plus var_smoothing x the largest of the model's, as the model smooths); its
     `psi` over `quantiles`: k bins of equal probability under the model's normal law, the
     batch's share of each against 1/k;
   - poisson_kl: KL of two Poisson laws from the mean counts;
   - psi: sum over bins of (b - m) ln(b / m), b and m the batch's and the model's shares,
     each at least `epsilon` in the logarithm; the bins are the model's categories plus
     one for the values it never saw, or (binarize) the values above the threshold and
     the others.
   Each statistic is computed per grouping `__sqlnb_all` (1: every row, 0: one class). #}
{% from 'families/common.sql' import num %}
{% import 'families/counts.sql' as counts %}
{% set gaussian = parts | selectattr('method', 'equalto', 'gaussian_kl') | list %}
{% set found = namespace(aliases=[]) %}
{% for part in parts if part.shape == 'categories' %}{% set found.aliases = found.aliases + (part.features | map(attribute='alias') | list) %}{% endfor %}
{% set categorical = found.aliases %}
{% macro same_group(a, b) -%}
{{ a }}.__sqlnb_all = {{ b }}.__sqlnb_all AND {{ a }}.__sqlnb_class IS NOT DISTINCT FROM {{ b }}.__sqlnb_class
{%- endmacro %}
{% macro groupings(columns, class='class') -%}
{% if target %}GROUP BY GROUPING SETS (({{ columns }}), ({{ columns }}, {{ class }})){% else %}GROUP BY {{ columns }}{% endif %}
{%- endmacro %}
{% macro group_columns(class='class') -%}
{% if target %}CASE WHEN grouping({{ class }}) = 0 THEN {{ class }} END AS __sqlnb_class, grouping({{ class }}) AS __sqlnb_all{% else %}NULL AS __sqlnb_class, 1 AS __sqlnb_all{% endif %}
{%- endmacro %}
WITH
{% for part in parts %}
{% set i = loop.index %}
{% if part.shape == 'categories' %}
model_{{ i }} AS (
    SELECT feature, category, {{ group_columns() }}, CAST(sum(n) AS DOUBLE) AS n
    FROM {{ part.t.feature_stats }}
    {{ groupings('feature, category') }}
),
{% elif part.shape == 'moments' %}
model_{{ i }} AS (
    -- the unweighted moments (n_mean is kept relative to an origin)
    SELECT
        feature,
        {{ group_columns() }},
        sum(n) AS n,
        sum(n * n_mean) / sum(n) AS relative_mean,
        greatest((sum(n_m2) + sum(n * n_mean * n_mean) - sum(n * n_mean) * sum(n * n_mean) / sum(n)) / sum(n), 0) AS var
    FROM {{ part.t.feature_stats }}
    {{ groupings('feature') }}
), smoothed_{{ i }} AS (
    -- the variance as the model smooths it: plus var_smoothing x the largest pooled one
    SELECT *, {{ part.p.var_smoothing | lit }} * max(CASE WHEN __sqlnb_all = 1 THEN var END) OVER () AS epsilon
    FROM model_{{ i }}
),
{% else %}
model_{{ i }} AS (
    -- the (weighted) mean of the values over the rows with a value
    SELECT
        s.feature,
        {{ group_columns('s.class') }},
        sum(s.n) AS n,
        sum(s.count) / sum({{ counts.feature_weight('s', 'c') }}) AS relative_mean,
        CAST(NULL AS DOUBLE) AS var
    FROM {{ part.t.feature_stats }} AS s
    JOIN {{ part.t.class_stats }} AS c USING (class)
    {{ groupings('s.feature', 's.class') }}
),
{% endif %}
{% endfor %}
bounds AS (
    -- per grouping, each Gaussian feature's mean and smoothed spread under the model
    SELECT
        __sqlnb_all,
        __sqlnb_class{{ "," if gaussian }}
{% for part in gaussian %}
{% set i = parts.index(part) + 1 %}
{% set outer = loop %}
{% for f in part.features %}
        max(CASE WHEN feature = {{ f.name | lit }} THEN {{ f.origin | lit }} + relative_mean END) AS {{ f.alias }}_at,
        max(CASE WHEN feature = {{ f.name | lit }} THEN sqrt(var + epsilon) END) AS {{ f.alias }}_sd{{ "," if not (outer.last and loop.last) }}
{% endfor %}
{% endfor %}
    FROM ({% for part in gaussian %}SELECT feature, __sqlnb_all, __sqlnb_class, relative_mean, var, epsilon FROM smoothed_{{ parts.index(part) + 1 }}{{ " UNION ALL " if not loop.last }}{% endfor %}{% if not gaussian %}SELECT 1 AS __sqlnb_all, NULL AS __sqlnb_class{% endif %})
    GROUP BY __sqlnb_all, __sqlnb_class
), batch AS {{ sql.materialized() }}(
    SELECT
        {% if target %}CASE WHEN grouping(__sqlnb_target) = 0 THEN __sqlnb_target END AS __sqlnb_class, grouping(__sqlnb_target) AS __sqlnb_all{% else %}NULL AS __sqlnb_class, 1 AS __sqlnb_all{% endif %},
{% for part in parts %}
{% for f in part.features %}
{% if part.shape == 'categories' %}
{% if category_sets %}
        {{ f.alias }}_x,
        grouping({{ f.alias }}_x) AS {{ f.alias }}_set,
{% else %}
        histogram({{ f.alias }}_x) AS {{ f.alias }}_h,
{% endif %}
{% elif part.method == 'psi' %}
        count({{ f.alias }}_x) AS {{ f.alias }}_n,
        sum({{ f.alias }}_v) AS {{ f.alias }}_s1,
        CAST(NULL AS DOUBLE) AS {{ f.alias }}_s2,
{% elif part.method == 'gaussian_kl' %}
        count({{ f.alias }}_d) AS {{ f.alias }}_n,
        sum({{ f.alias }}_d) AS {{ f.alias }}_s1,
        sum({{ f.alias }}_d * {{ f.alias }}_d) AS {{ f.alias }}_s2,
{% for z in quantiles %}
        count_if({{ f.alias }}_z < {{ z | lit }}) AS {{ f.alias }}_below_{{ loop.index }},
{% if target %}
        count_if({{ f.alias }}_own_z < {{ z | lit }}) AS {{ f.alias }}_own_below_{{ loop.index }},
{% endif %}
{% endfor %}
{% else %}
        count({{ f.alias }}_x) AS {{ f.alias }}_n,
        sum({{ f.alias }}_x) AS {{ f.alias }}_s1,
        sum({{ f.alias }}_x * {{ f.alias }}_x) AS {{ f.alias }}_s2,
{% endif %}
{% endfor %}
{% endfor %}
        count(*) AS __sqlnb_rows{{ sql.read_once() }}
    FROM (
        -- each value read once; a Gaussian feature's taken from its origin (`_d`: the
        -- first fit's mean, near the data, so the sums keep their digits) and, for the
        -- PSI bins, standardised under the model's pooled law (`_z`) and its class's
        SELECT
{% if target %}
            __sqlnb_source.{{ target }} AS __sqlnb_target,
{% endif %}
{% for part in parts %}
{% for f in part.features %}
{% if part.method == 'psi' and part.shape == 'categories' %}
            {{ sql.as_text(f.column) }} AS {{ f.alias }}_x,
{% elif part.method == 'gaussian_kl' %}
            {{ num(f) }} - {{ f.origin | lit }} AS {{ f.alias }}_d,
{% if quantiles %}
            ({{ num(f) }} - pooled.{{ f.alias }}_at) / pooled.{{ f.alias }}_sd AS {{ f.alias }}_z,
{% if target %}
            ({{ num(f) }} - own.{{ f.alias }}_at) / own.{{ f.alias }}_sd AS {{ f.alias }}_own_z,
{% endif %}
{% endif %}
{% else %}
            {{ num(f) }} AS {{ f.alias }}_x,
{% endif %}
{% if part.method == 'psi' and part.shape != 'categories' %}
            {{ counts.value(f, part.p.binarize) }} AS {{ f.alias }}_v,
{% endif %}
{% endfor %}
{% endfor %}
            1 AS __sqlnb_one
        FROM {{ source }} AS __sqlnb_source
{% if quantiles and gaussian %}
        CROSS JOIN (SELECT * FROM bounds WHERE __sqlnb_all = 1) AS pooled
{% if target %}
        LEFT JOIN (SELECT * FROM bounds WHERE __sqlnb_all = 0) AS own ON own.__sqlnb_class = __sqlnb_source.{{ target }}
{% endif %}
{% endif %}
    )
{% if category_sets %}
    GROUP BY GROUPING SETS (()
{%- for x in categorical %}, ({{ x }}_x){% endfor %}
{%- if target %}, (__sqlnb_target){% for x in categorical %}, ({{ x }}_x, __sqlnb_target){% endfor %}{% endif %})
{% elif target %}
    GROUP BY GROUPING SETS ((), (__sqlnb_target))
{% endif %}
), totals AS (
    -- the moments' rows (with category_sets, the other rows count one feature's categories)
    SELECT * FROM batch
{% if category_sets and categorical %}
    WHERE {% for x in categorical %}{{ x }}_set = 1{{ " AND " if not loop.last }}{% endfor %}

{% endif %}
)
{% for part in parts %}
{% set i = loop.index %}
{% if part.shape == 'categories' %}
, batch_{{ i }} AS (
{% if category_sets %}
    -- a row of one feature's grouping set is a count of one of its categories (read in
    -- one pass: Spark would scan the source again for every read of `batch`)
    SELECT * FROM (
        SELECT
            __sqlnb_all,
            __sqlnb_class,
            CASE{% for f in part.features %} WHEN {{ f.alias }}_set = 0 THEN {{ f.name | lit }}{% endfor %} END AS feature,
            CASE{% for f in part.features %} WHEN {{ f.alias }}_set = 0 THEN {{ f.alias }}_x{% endfor %} END AS key,
            __sqlnb_rows AS value
        FROM batch
    ) AS cells
    WHERE feature IS NOT NULL AND key IS NOT NULL
{% else %}
    SELECT x.__sqlnb_all, x.__sqlnb_class, x.f.feature_index, x.f.feature, unnest(x.f.cells, recursive := true)
    FROM (
        SELECT __sqlnb_all, __sqlnb_class, unnest([
{% for f in part.features %}
            {'feature_index': {{ f.index }}, 'feature': {{ f.name | lit }}, 'cells': map_entries({{ f.alias }}_h)}{{ "," if not loop.last }}
{% endfor %}
        ]) AS f
        FROM batch
    ) AS x
{% endif %}
), bins_{{ i }} AS (
    -- the model's categories, and one bin (category NULL) for the values it never saw
    SELECT
        coalesce(b.feature, m.feature) AS feature,
        coalesce(b.__sqlnb_all, m.__sqlnb_all) AS __sqlnb_all,
        coalesce(b.__sqlnb_class, m.__sqlnb_class) AS __sqlnb_class,
        CASE WHEN m.category IS NOT NULL THEN m.category END AS category,
        coalesce(sum(b.value), 0) AS batch_n,
        coalesce(sum(m.n), 0) AS model_n
    FROM batch_{{ i }} AS b
    FULL OUTER JOIN model_{{ i }} AS m
        ON b.feature = m.feature AND b.key = m.category AND {{ same_group('b', 'm') }}
    GROUP BY coalesce(b.feature, m.feature), coalesce(b.__sqlnb_all, m.__sqlnb_all), coalesce(b.__sqlnb_class, m.__sqlnb_class), m.category
), shares_{{ i }} AS (
    SELECT
        *,
        batch_n / nullif(sum(batch_n) OVER (PARTITION BY feature, __sqlnb_all, __sqlnb_class), 0) AS batch_share,
        model_n / nullif(sum(model_n) OVER (PARTITION BY feature, __sqlnb_all, __sqlnb_class), 0) AS model_share
    FROM bins_{{ i }}
), part_{{ i }} AS (
    SELECT
        f.feature_index,
        f.feature,
        s.__sqlnb_all,
        s.__sqlnb_class AS class,
        'psi' AS method,
        sum((s.batch_share - s.model_share)
            * ln(greatest(s.batch_share, {{ epsilon | lit }}) / greatest(s.model_share, {{ epsilon | lit }}))) AS drift,
        CAST(sum(s.batch_n) AS BIGINT) AS batch_count,
        CAST(NULL AS DOUBLE) AS batch_mean,
        CAST(NULL AS DOUBLE) AS batch_spread,
        CAST(sum(s.model_n) AS BIGINT) AS model_count,
        CAST(NULL AS DOUBLE) AS model_mean,
        CAST(NULL AS DOUBLE) AS model_spread,
        {{ sql.top_shares('s.category', 's.batch_share', top_categories) }} AS batch_top,
        {{ sql.top_shares('s.category', 's.model_share', top_categories) }} AS model_top
    FROM (VALUES
{% for f in part.features %}
        ({{ f.index }}, {{ f.name | lit }}){{ "," if not loop.last }}
{% endfor %}
    ) AS f (feature_index, feature)
    JOIN shares_{{ i }} AS s USING (feature)
    GROUP BY f.feature_index, f.feature, s.__sqlnb_all, s.__sqlnb_class
    -- a class of the model that the batch lacks is no row
    HAVING s.__sqlnb_all = 1 OR sum(s.batch_n) > 0
)
{% else %}
, batch_{{ i }} AS (
{% set out = namespace(index=[], name=[], origin=[], n=[], s1=[], s2=[]) %}
{% for f in part.features %}
{% set out.index = out.index + [f.index | string] %}
{% set out.name = out.name + [f.name | lit] %}
{% set out.origin = out.origin + [f.origin | lit] %}
{% set out.n = out.n + [f.alias ~ '_n'] %}
{% set out.s1 = out.s1 + [f.alias ~ '_s1'] %}
{% set out.s2 = out.s2 + [f.alias ~ '_s2'] %}
{% endfor %}
{% set columns = namespace(list=[('feature_index', out.index), ('feature', out.name), ('origin', out.origin), ('n', out.n), ('s1', out.s1), ('s2', out.s2)]) %}
{% if part.method == 'gaussian_kl' %}
{% for z in quantiles %}
{% set j = loop.index %}
{% set below = namespace(values=[]) %}
{% for f in part.features %}
{% if target %}
{% set below.values = below.values + ['CASE WHEN __sqlnb_all = 1 THEN ' ~ f.alias ~ '_below_' ~ j ~ ' ELSE ' ~ f.alias ~ '_own_below_' ~ j ~ ' END'] %}
{% else %}
{% set below.values = below.values + [f.alias ~ '_below_' ~ j] %}
{% endif %}
{% endfor %}
{% set columns.list = columns.list + [('below_' ~ j, below.values)] %}
{% endfor %}
{% endif %}
    SELECT __sqlnb_all, __sqlnb_class, {{ sql.unpivot(columns.list) }}
    FROM totals
), moments_{{ i }} AS (
    -- the batch's mean and variance from its sums ({{ "around the origin" if part.method == 'gaussian_kl' else "of the values" }})
    SELECT
        b.feature_index,
        b.feature,
        b.__sqlnb_all,
        b.__sqlnb_class AS class,
        CAST(b.n AS BIGINT) AS batch_count,
{% if part.method == 'gaussian_kl' %}
        b.origin + b.s1 / nullif(b.n, 0) AS batch_mean,
{% else %}
        b.s1 / nullif(b.n, 0) AS batch_mean,
{% endif %}
        CASE WHEN b.n > 0 THEN greatest(b.s2 / b.n - (b.s1 / b.n) * (b.s1 / b.n), 0) END AS batch_var,
        CAST(m.n AS BIGINT) AS model_count,
        b.origin + m.relative_mean AS model_mean,
        m.var AS model_var,
{% if part.method == 'gaussian_kl' %}
{% for z in quantiles %}
        b.below_{{ loop.index }},
{% endfor %}
        m.epsilon
    FROM batch_{{ i }} AS b
    JOIN smoothed_{{ i }} AS m ON b.feature = m.feature AND {{ same_group('b', 'm') }}
{% else %}
        0.0 AS epsilon
    FROM batch_{{ i }} AS b
    JOIN model_{{ i }} AS m ON b.feature = m.feature AND {{ same_group('b', 'm') }}
{% endif %}
), part_{{ i }} AS (
    SELECT
        feature_index,
        feature,
        __sqlnb_all,
        class,
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
{% if part.method == 'gaussian_kl' and quantiles %}
{% set k = quantiles | length + 1 %}
        -- the batch's share of each of the k bins of equal probability (1/k) under the
        -- model's normal law: bin j holds the values between the boundaries j - 1 and j
        CASE WHEN batch_count > 0 AND model_var + epsilon > 0 THEN
{% for j in range(1, k + 1) %}
{% set share %}({% if j < k %}below_{{ j }}{% else %}batch_count{% endif %}{% if j > 1 %} - below_{{ j - 1 }}{% endif %}) / batch_count{% endset %}
            {{ "+ " if not loop.first }}({{ share }} - {{ (1.0 / k) | lit }}) * ln(greatest({{ share }}, {{ epsilon | lit }}) / {{ (1.0 / k) | lit }})
{% endfor %}
        END AS psi,
{% elif part.method == 'psi' %}
        NULL AS psi,
{% else %}
        CAST(NULL AS DOUBLE) AS psi,
{% endif %}
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
        {{ sql.no_categories() }} AS batch_top,
        {{ sql.no_categories() }} AS model_top
    FROM moments_{{ i }}
)
{% endif %}
{% endfor %}
SELECT feature, class, method, drift, CASE WHEN method = 'psi' THEN drift ELSE psi END AS psi,
       batch_count, batch_mean, batch_spread, model_count, model_mean, model_spread,
       batch_top, model_top
FROM (
{% for part in parts %}
    SELECT feature_index, feature, __sqlnb_all, class, method, drift, {% if part.shape == 'categories' %}CAST(NULL AS DOUBLE) AS psi{% else %}psi{% endif %},
           batch_count, batch_mean, batch_spread, model_count, model_mean, model_spread,
           batch_top, model_top
    FROM part_{{ loop.index }}{{ " UNION ALL" if not loop.last }}
{% endfor %}
)
ORDER BY feature_index, __sqlnb_all DESC, class
