{#-
  Gaussian naive Bayes.
  Statistics: per class x feature the weighted mean and the weighted sum of squared
  deviations (m2), plus their unweighted twins (n_mean, n_m2) from which var_smoothing's
  epsilon is derived exactly as scikit-learn does (the unweighted variance of X).
  Each batch is summed around a per-feature shift close to the data (a pilot mean), so
  m2 = S2 - S1^2 / W never cancels catastrophically; batches are combined pairwise.
-#}
{% from 'families/common.sql' import num, list_of, columns_of, missing_aware, by_group, partition_by_group, sum_of_terms %}
{% from 'update/incremental.sql' import signed, added, non_negative %}

{% macro stats_table(t, class_type) %}
CREATE TABLE {{ t.feature_stats }} (
{% for g in t.get('groups', []) %}
    {{ g.column }} {{ g.type }} NOT NULL,
{% endfor %}
    class   {{ class_type }} NOT NULL,
    feature {{ sql.type('VARCHAR') }} NOT NULL,
    n       BIGINT NOT NULL,   -- rows with a value
    weight  DOUBLE NOT NULL,   -- sum of sample weights of those rows
    mean    DOUBLE NOT NULL,   -- weighted mean
    m2      DOUBLE NOT NULL,   -- weighted sum of squared deviations from the mean
    n_mean  DOUBLE NOT NULL,   -- unweighted mean
    -- unweighted sum of squared deviations
    n_m2    DOUBLE NOT NULL{{ sql.primary_key([by_group(t) ~ 'class', 'feature']) }}
);
{% endmacro %}

{% macro batch(source, target, weight, features, t) %}
{% if t.get('long_sums') %}
{{ long_sums(source, target, features) }}
{% else %}
-- Sums are taken around a shift close to the data, so m2 = S2 - S1^2 / W keeps its
-- precision: one literal per feature where the classes lie close together (no join, as
-- fast as a plain scan); per class where the pilot saw them far apart (each class's value
-- over the first rows, joined); per class (joined from the shifts table) for the features
-- a rescan needs.
{% set pilot = features | selectattr('pilot_shift', 'defined') | selectattr('pilot_shift') | list %}
SELECT
{% if t.get('groups') %}
    -- per-group rows and, in the same scan, the pooled model's rows (group NULL)
    GROUPING(__src.{{ t.groups[0].column }}) > 0 AS __sqlnb_pooled,
{% for g in t.groups %}
    __src.{{ g.column }} AS {{ g.column }},
{% endfor %}
{% endif %}
    __src.{{ target }} AS class,
    count(*) AS n,
    {% if weight %}sum(__src.{{ weight }}){% else %}CAST(count(*) AS DOUBLE){% endif %} AS weight,
{{ batch_columns(features, weight) -}}
FROM {{ source }} AS __src
{% if features | selectattr('class_shift', 'defined') | selectattr('class_shift') | list %}
LEFT JOIN {{ t.shifts }} AS __shift ON __shift.class = __src.{{ target }}
{% endif %}
{% if pilot %}
LEFT JOIN (
{% if pilot[0].pilot_shift == 'stored' %}
{{ stored_shifts(t, pilot) }}
{% elif pilot[0].pilot_classes is defined %}
{{ pilot_values(pilot) }}
{% else %}
{{ pilot_shifts(source, target, pilot) }}
{% endif %}
) AS __pilot ON __pilot.class = __src.{{ target }}
{% endif %}
WHERE __src.{{ target }} IS NOT NULL
{% if t.get('groups') %}
GROUP BY GROUPING SETS (({{ by_group(t, '__src.') }}__src.{{ target }}), (__src.{{ target }}))
{% else %}
GROUP BY __src.{{ target }}
{% endif %}
{% endif %}
{% endmacro %}

{#- A small batch summed long (unweighted, one model, DuckDB): the input's values as
    (class, feature, value) rows, grouped by class and feature into a list each, then each
    list summed around the class's own mean of it (its one value where all are equal: the
    sums are then exactly zero): a two-pass sum, as scikit-learn's, in one statement whose
    planning does not grow with aggregates per feature (the lists cost less than joining
    the rows to their means). A row per class and feature (n, the sums, the shift, the
    feature's origin and `rows`, the class's labelled rows), and a row per class with
    feature NULL (its n and weight). #}
{% macro long_sums(source, target, features) %}
{% set names = features | map(attribute='name') | map('lit') | list %}
{#- a feature without an origin (a new model's) takes the mean of its classes' means #}
{% set own_origin = features | rejectattr('origin', 'defined') | list %}
{#- the origins and fallback shifts are unpivoted only where they differ between features
    (a fit's are all unknown and all 0): each unpivoted list is planned #}
{% set origins = features | each(long_origin) %}
{% set fallbacks = features | each(fallback_shift) %}
{% set origins_differ = origins | unique | list | length > 1 %}
{% set fallbacks_differ = fallbacks | unique | list | length > 1 %}
{% set lists = [('feature', names)] %}
{% if origins_differ %}{% set lists = lists + [('origin', origins)] %}{% endif %}
{% if fallbacks_differ %}{% set lists = lists + [('fallback', fallbacks)] %}{% endif %}
WITH __groups AS (
    SELECT
        class,
        feature,
        count(value) AS n,
        count(*) AS rows,
        list(value) FILTER (WHERE value IS NOT NULL) AS __values,
        coalesce(CASE WHEN NOT {{ sql.is_finite('avg(value)') }} THEN NULL
                      WHEN min(value) = max(value) THEN min(value)
                      ELSE avg(value) END, {{ 'max(fallback)' if fallbacks_differ else fallbacks[0] }}) AS shift,
        {{ 'max(origin)' if origins_differ else origins[0] }} AS origin
    FROM (
        SELECT
            __src.{{ target }} AS class,
            {{ sql.unpivot(lists + [('value', features | each(long_value))]) }}
        FROM {{ source }} AS __src
        WHERE __src.{{ target }} IS NOT NULL
    ) AS __long
    GROUP BY class, feature
){% if own_origin %},
__origin AS (
    SELECT feature, avg(shift) AS own
    FROM __groups
    WHERE {{ sql.is_finite('shift') }}
    GROUP BY feature
){% endif %}

SELECT
    __groups.class,
    __groups.feature,
    n,
    CAST(n AS DOUBLE) AS weight,
    rows,
    list_sum(list_transform(__values, lambda v: v - shift)) AS s1,
    list_sum(list_transform(__values, lambda v: (v - shift) * (v - shift))) AS s2,
    shift,
    {% if own_origin %}coalesce(origin, __origin.own, 0){% else %}origin{% endif %} AS origin
FROM __groups
{% if own_origin %}
LEFT JOIN __origin ON __origin.feature = __groups.feature
{% endif %}
UNION ALL
SELECT
    {{ target }} AS class,
    CAST(NULL AS {{ sql.type('VARCHAR') }}) AS feature,
    count(*) AS n,
    CAST(count(*) AS DOUBLE) AS weight,
    NULL, NULL, NULL, NULL, NULL
FROM {{ source }}
WHERE {{ target }} IS NOT NULL
GROUP BY {{ target }}
{%- endmacro %}
{% macro fallback_shift(f) %}{{ f.get('shift', 0.0) | lit }}{% endmacro %}
{% macro long_origin(f) %}{% if f.origin is defined %}{{ f.origin | lit }}{% else %}CAST(NULL AS DOUBLE){% endif %}{% endmacro %}
{#- (a DOUBLE column as it is: a cast per feature is one more expression to plan) #}
{% macro long_value(f) %}{% if f.type | default('') == 'DOUBLE' and not f.guard | default(false) %}__src.{{ f.column }}{% else %}{{ num({'column': '__src.' ~ f.column, 'guard': f.guard | default(false)}) }}{% endif %}{% endmacro %}

{# The per-feature sums of a batch, over `__src` joined to the shifts as `__shift`. #}
{% macro batch_columns(features, weight) %}
{% for f in features %}
    {% set x = num({'column': '__src.' ~ f.column, 'guard': f.guard | default(false)}) %}
    {% set d = '(' ~ x ~ ' - ' ~ shift(f) ~ ')' %}
    count({{ x }}) AS {{ f.alias }}_n,
    {% if weight %}
    sum(__src.{{ weight }}) FILTER (WHERE {{ x }} IS NOT NULL) AS {{ f.alias }}_w,
    sum(__src.{{ weight }} * {{ d }}) AS {{ f.alias }}_s1,
    sum(__src.{{ weight }} * {{ d }} * {{ d }}) AS {{ f.alias }}_s2,
    sum({{ d }}) AS {{ f.alias }}_u1,
    sum({{ d }} * {{ d }}) AS {{ f.alias }}_u2,
    {% else %}
    sum({{ d }}) AS {{ f.alias }}_s1,
    sum({{ d }} * {{ d }}) AS {{ f.alias }}_s2,
    {% endif %}
    {% if f.get('class_shift') %}
    -- a rescanned class whose values are all equal gets that value and m2 = 0 exactly
    min({{ x }}) AS {{ f.alias }}_lo,
    max({{ x }}) AS {{ f.alias }}_hi,
    {% endif %}
    {#- a literal shift is no aggregate; a class's own (joined) shift is one value per
        class, which max takes with one field of state (Spark's any_value keeps two, and
        a grouping with more than spark.sql.codegen.maxFields (100) fields of state gets
        no generated code: twice the time) #}
    {% if f.get('class_shift') or f.get('pilot_shift') %}max({{ shift(f) }}){% else %}{{ shift(f) }}{% endif %} AS {{ f.alias }}_shift{{ "," if not loop.last }}
{% endfor %}
{% endmacro %}

{% macro shift(f) %}{% if f.get('class_shift') %}coalesce(__shift.{{ f.alias }}, {{ f.shift | lit }}){% elif f.get('pilot_shift') %}coalesce(__pilot.{{ f.alias }}, {{ f.shift | lit }}){% else %}{{ f.shift | lit }}{% endif %}{% endmacro %}

{#- An update's shift per class: the class's learned (unweighted) mean, where the model's
    statistics put classes apart (`pilot_shift` is 'stored'). -#}
{% macro stored_shifts(t, features) %}
    SELECT
        class,
{% for f in features %}
        max(CASE WHEN feature = {{ f.name | lit }} THEN {{ feature_origin(f) }} + n_mean END) AS {{ f.alias }}{{ "," if not loop.last }}
{% endfor %}
    FROM {{ t.feature_stats }}
    WHERE n > 0 AND {{ sql.is_finite('n_mean') }}
    GROUP BY class
{%- endmacro %}

{#- The same shifts as pilot_shifts, as constants: the values fit/pilot.sql's look at the
    first rows found per class (each feature's `pilot_classes`: the class type and the
    (label, value) pairs, the labels in the same order for every feature). -#}
{% macro pilot_values(features) %}
{% set class_type = features[0].pilot_classes[0] %}
    SELECT *
    FROM (VALUES
{% for label, _ in features[0].pilot_classes[1] %}
{% set row = loop.index0 %}
        ({{ label | lit(class_type) }}{% for f in features %}, {{ f.pilot_classes[1][row][1] | lit }}{% endfor %}){{ "," if not loop.last }}
{% endfor %}
    ) AS __values(class{% for f in features %}, {{ f.alias }}{% endfor %})
{%- endmacro %}

{#- Each class's shift from the source's first rows (the rows fit/pilot.sql looked at): the
    class's one value where all its values there are equal (a class constant in a feature
    then sums exactly zero: its mean is that value and its m2 exactly 0), else their mean;
    NULL (the feature's shift) where not finite. A feature's `pilot_shift` is the number
    of first rows looked at. -#}
{% macro pilot_shifts(source, target, features) %}
    SELECT
        {{ target }} AS class,
{% for f in features %}
        {% set x = 'CAST(' ~ f.column ~ ' AS DOUBLE)' %}
        CASE WHEN NOT {{ sql.is_finite('avg(' ~ x ~ ')') }} THEN NULL
             WHEN min({{ x }}) = max({{ x }}) THEN min({{ x }})
             ELSE avg({{ x }}) END AS {{ f.alias }}{{ "," if not loop.last }}
{% endfor %}
    FROM (SELECT * FROM {{ source }} LIMIT {{ features[0].pilot_shift | lit }}) AS __first
    WHERE {{ target }} IS NOT NULL
    GROUP BY {{ target }}
{%- endmacro %}

{# One row per feature of a batch row: the `leading` (name, values) columns, then its
   weight and the shifted sums s1, s2 (weighted) and u1, u2 (unweighted; the same as s1, s2
   when the batch has no weights). #}
{% macro batch_sums(features, weighted, weight_name, leading) -%}
{% set a = features | map(attribute='alias') | list %}
{% if weighted %}
{{ sql.unpivot(leading + [(weight_name, a | each('coalesce({}_w, 0)')), ('s1', a | each('{}_s1')), ('s2', a | each('{}_s2')), ('u1', a | each('{}_u1')), ('u2', a | each('{}_u2'))]) }}
{%- else %}
{{ sql.unpivot(leading + [(weight_name, a | each('CAST({}_n AS DOUBLE)')), ('s1', a | each('{}_s1')), ('s2', a | each('{}_s2')), ('u1', a | each('{}_s1')), ('u2', a | each('{}_s2'))]) }}
{%- endif %}
{%- endmacro %}

{% macro cancelling(t, features, weighted) %}
-- Features whose batch sums lose more than one digit to cancellation in some class
-- (m2 = S2 - S1^2 / W below S2 / 10: the shift is more than three spreads from the
-- class's mean), so no variance keeps an error above a few dozen roundings (scikit-learn's
-- two passes do no better). Sums that are exactly zero lost nothing. A feature comes once
-- per class where it cancels (the caller takes the set).
{% set names = features | map(attribute='name') | map('lit') | list %}
{% if t.get('long_sums') %}
SELECT feature
FROM {{ t.batch }}
WHERE feature IS NOT NULL AND n > 0 AND s2 > 0 AND s2 - s1 * s1 / n < 1e-1 * s2
{% else %}
SELECT feature
FROM (
    SELECT
{% if weighted %}
        {{ batch_sums(features, weighted, 'w', [('feature', names), ('n', features | map(attribute='alias') | each('CAST({}_n AS DOUBLE)'))]) }}
{% else %}
        {#- without weights the unweighted sums are the weighted ones: asked once (a
            quarter of this query's planning) #}
        {{ sql.unpivot([('feature', names), ('w', features | map(attribute='alias') | each('CAST({}_n AS DOUBLE)')), ('s1', features | map(attribute='alias') | each('{}_s1')), ('s2', features | map(attribute='alias') | each('{}_s2'))]) }}
{% endif %}
    FROM {{ t.batch }}
)
WHERE (w > 0 AND s2 > 0 AND s2 - s1 * s1 / w < 1e-1 * s2)
{% if weighted %}
   OR (n > 0 AND u2 > 0 AND u2 - u1 * u1 / n < 1e-1 * u2)
{% endif %}
{% endif %}
{% endmacro %}

{% macro class_shifts(t, features, weighted) %}
-- Each class's own (unweighted) batch mean becomes its shift for the rescan.
{{ sql.temp_table(t.shifts) }}
SELECT
    class,
{% for f in features %}
    CASE WHEN {{ f.alias }}_n > 0 THEN {{ f.alias }}_shift + {{ f.alias }}_{{ 'u1' if weighted else 's1' }} / {{ f.alias }}_n END AS {{ f.alias }}{{ "," if not loop.last }}
{% endfor %}
FROM {{ t.batch }};
{% endmacro %}

{% macro merge(t, features, weighted, sign=1) %}
{{ upsert(t, batch_moments(t, features, weighted), sign) }}
{% endmacro %}

{# A rescanned feature's smallest and largest value in a class (NULL if not rescanned). #}
{% macro lo_of(f) %}{% if f.get('class_shift') %}{{ f.alias }}_lo{% else %}CAST(NULL AS DOUBLE){% endif %}{% endmacro %}
{% macro hi_of(f) %}{% if f.get('class_shift') %}{{ f.alias }}_hi{% else %}CAST(NULL AS DOUBLE){% endif %}{% endmacro %}

{#- n_mean is kept relative to the feature's origin (see feature_origin): the class means
    near a large offset then keep their digits, and the overall variance pooled from them
    (var_smoothing's epsilon) with them. #}
{% macro feature_origin(f) %}{{ f.get('origin', 0.0) | lit }}{% endmacro %}

{#- The batch's moments per class x feature. Only the lists that differ are unpivoted (the
    planner's time grows with them, and DuckDB plans this statement at every update):
    without weights the weight is the count and the unweighted sums are the weighted ones;
    the smallest and largest values exist only for rescanned features. #}
{% macro batch_moments(t, features, weighted) %}
{% set a = features | map(attribute='alias') | list %}
{% set rescanned = features | selectattr('class_shift', 'defined') | selectattr('class_shift') | list %}
{% set lists = [('feature', features | map(attribute='name') | map('lit') | list), ('shift', a | each('{}_shift')), ('origin', features | each(feature_origin)), ('n', a | each('{}_n')), ('s1', a | each('{}_s1')), ('s2', a | each('{}_s2'))] %}
{% if weighted %}
{% set lists = lists + [('w', a | each('coalesce({}_w, 0)')), ('u1', a | each('{}_u1')), ('u2', a | each('{}_u2'))] %}
{% endif %}
{% if rescanned %}
{% set lists = lists + [('lo', features | each(lo_of)), ('hi', features | each(hi_of))] %}
{% endif %}
{% set weight = 'w' if weighted else 'CAST(n AS DOUBLE)' %}
{% set u1, u2 = ('u1', 'u2') if weighted else ('s1', 's2') %}
WITH unpivoted AS (
{% if t.get('long_sums') %}
    -- (a long batch: a row per class and feature already)
    SELECT class, feature, shift, origin, n, s1, s2
    FROM {{ t.batch }}
    WHERE feature IS NOT NULL
{% else %}
    SELECT
        {{ by_group(t) }}class,
        {{ sql.unpivot(lists) }}
    FROM {{ t.batch }}
{% endif %}
)
SELECT
    {{ by_group(t) }}class,
    feature,
    n,
    {{ weight }} AS weight,
    -- the batch's own moments, from sums taken around the shift (a rescanned class whose
    -- values are all equal: that value, and m2 = 0 exactly)
    CASE WHEN {{ weight }} = 0 THEN 0 {% if rescanned %}WHEN lo = hi THEN lo {% endif %}ELSE shift + s1 / {{ weight }} END AS mean,
    CASE WHEN {{ weight }} = 0 {% if rescanned %}OR lo = hi {% endif %}THEN 0 ELSE greatest(s2 - s1 * s1 / {{ weight }}, 0) END AS m2,
    -- relative to the origin: shift - origin is exact when both are close
    CASE WHEN n = 0 THEN 0 {% if rescanned %}WHEN lo = hi THEN lo - origin {% endif %}ELSE (shift - origin) + {{ u1 }} / n END AS n_mean,
    CASE WHEN n = 0 {% if rescanned %}OR lo = hi {% endif %}THEN 0 ELSE greatest({{ u2 }} - {{ u1 }} * {{ u1 }} / n, 0) END AS n_m2
FROM unpivoted
{% endmacro %}

{# Fold another model's statistics (same features) into this one. `origin_shifts`: the
   (feature, source origin - this model's origin) pairs that are not zero, which move the
   source's relative n_mean onto this model's origins. #}
{% macro merge_model(t, source, sign=1, origin_shifts=[]) %}
{% set moments %}
SELECT
    {{ by_group(t) }}class, feature, n, weight, mean, m2,
{% if origin_shifts %}
    n_mean + CASE feature
{% for feature, delta in origin_shifts %}
        WHEN {{ feature | lit }} THEN {{ delta | lit }}
{% endfor %}
        ELSE 0 END AS n_mean,
{% else %}
    n_mean,
{% endif %}
    n_m2
FROM {{ source.feature_stats }}
{% endset %}
{{ upsert(t, moments, sign) }}
{% endmacro %}

{# Zero statistics for declared classes that have no rows yet (scikit-learn's `classes`). #}
{% macro declare(t, features) %}
{% set rows %}
SELECT c.class, f.feature, 0, 0, 0, 0, 0, 0
FROM {{ t.class_stats }} AS c
CROSS JOIN {{ t.features }} AS f
WHERE f.feature IN ({% for f in features %}{{ f.name | lit }}{{ ", " if not loop.last }}{% endfor %})
{% endset %}
{{ sql.insert_missing(t.feature_stats, ['class', 'feature'], ['n', 'weight', 'mean', 'm2', 'n_mean', 'n_m2'], rows, t.get('next_feature_stats')) }};
{% endmacro %}

{#
  Upsert per class x feature moments (n, weight, mean, m2 and the unweighted twins) into
  the model: the pairwise update of Chan, Golub & LeVeque. With sign = -1 the same update
  runs backwards (negative weight and m2), which is exact algebra: it removes a batch.
#}
{% macro upsert(t, moments, sign) %}
{% set keys = (t.get('groups', []) | map(attribute='column') | list) + ['class', 'feature'] %}
{% set rows %}
SELECT
    {{ by_group(t) }}class,
    feature,
    {{ signed('n', sign) }},
    {{ signed('weight', sign) }},
    mean,
    {{ signed('m2', sign) }},
    n_mean,
    {{ signed('n_m2', sign) }}
FROM (
{{ moments }}
) AS moments
{% endset %}
{% call(column, old, new) sql.upsert(t.feature_stats, keys, ['n', 'weight', 'mean', 'm2', 'n_mean', 'n_m2'], rows, t.get('next_feature_stats'), fresh=t.get('fresh', false)) -%}
{% set w = added(old ~ '.weight', new ~ '.weight', sign) %}
{% set n = '(' ~ old ~ '.n + ' ~ new ~ '.n)' %}
{% if column == 'n' %}
{{ n }}
{%- elif column == 'weight' %}
{{ w }}
{%- elif column == 'mean' %}
CASE WHEN {{ w }} = 0 THEN 0 ELSE
        {{ old }}.mean + ({{ new }}.mean - {{ old }}.mean) * {{ new }}.weight / {{ w }} END
{%- elif column == 'm2' %}
CASE WHEN {{ w }} = 0 THEN 0 ELSE {% call non_negative(sign) %}
        {{ old }}.m2 + {{ new }}.m2
        + ({{ new }}.mean - {{ old }}.mean) * ({{ new }}.mean - {{ old }}.mean)
        * {{ old }}.weight * {{ new }}.weight / {{ w }}{% endcall %} END
{%- elif column == 'n_mean' %}
CASE WHEN {{ n }} = 0 THEN 0 ELSE
        {{ old }}.n_mean + ({{ new }}.n_mean - {{ old }}.n_mean) * {{ new }}.n / {{ n }} END
{%- else %}
CASE WHEN {{ n }} = 0 THEN 0 ELSE {% call non_negative(sign) %}
        {{ old }}.n_m2 + {{ new }}.n_m2
        + ({{ new }}.n_mean - {{ old }}.n_mean) * ({{ new }}.n_mean - {{ old }}.n_mean)
        * {{ old }}.n * {{ new }}.n / {{ n }}{% endcall %} END
{%- endif %}
{%- endcall %};
{% endmacro %}

{% macro checks(t, features) %}
{{ moment_checks(t) }}
UNION ALL
-- var_smoothing = 0 and a class without spread in a feature that varies: a point mass,
-- whose density is infinite at its mean and zero elsewhere
SELECT feature, 'has no spread in class ' || {{ sql.as_text('class') }} || ' and var_smoothing is 0: set var_smoothing > 0' AS problem
FROM {{ t.feature_params }}
WHERE NOT var > 0
{% endmacro %}

{% macro moment_checks(t) %}
-- (a fit whose sums are not finite asks the source why when it scans it; a merge or an
-- import is told this)
SELECT feature, 'has infinite values or values too large to add up (its mean is not finite)' AS problem
FROM {{ t.feature_stats }}
WHERE NOT {{ sql.is_finite('mean') }}
UNION ALL
SELECT feature, 'has values too large to square in double precision (its variance is not finite): rescale the column, e.g. divide it by a power of ten' AS problem
FROM {{ t.feature_stats }}
WHERE {{ sql.is_finite('mean') }} AND NOT ({{ sql.is_finite('m2') }} AND {{ sql.is_finite('n_m2') }})
{%- endmacro %}

{#- The checks read from the statistics alone, without the parameter view (planning it
    costs more than the rest of the checks). With var_smoothing > 0 a variance is spread +
    epsilon, epsilon = var_smoothing times the largest variance of a feature, which is at
    least the largest n_m2 over the total count: if every moment is finite and not
    negative and that bound keeps epsilon well above 0, every variance is above 0 and
    the view's check finds nothing. Otherwise one row 'recheck' says to ask `checks`
    (the caller does). A model of groups (an epsilon per group) asks `checks` itself. -#}
{% macro quick_checks(t, features, p) %}
{% if p.var_smoothing > 0 and not t.get('groups') %}
{{ moment_checks(t) }}
UNION ALL
SELECT NULL AS feature, 'recheck' AS problem
FROM {{ t.feature_stats }}
HAVING bool_or(NOT coalesce(m2 >= 0 AND n_m2 >= 0 AND weight >= 0 AND {{ sql.is_finite('m2') }}
                            AND {{ sql.is_finite('n_m2') }} AND {{ sql.is_finite('mean') }}, FALSE))
    OR NOT coalesce(max(n_m2) * {{ p.var_smoothing | lit }} >= 1e-300 * sum(n), FALSE)
{% else %}
{{ checks(t, features) }}
{% endif %}
{%- endmacro %}

{#- Per class x feature: the mean and spread a class's parameters come from, and the
    feature's overall (unweighted) variance. A class that has rows but no value of the
    feature (all missing) takes the feature's pooled mean and spread, over the classes that
    have values: it then gets about the same density as the others, so the feature says
    little for or against it. -#}
{% macro moments(t, alias='s') %}
WITH per_feature AS (
    SELECT
        {{ by_group(t) }}feature,
        sum(n) AS total_n,
        CASE WHEN sum(n) > 0 THEN sum(n * n_mean) / sum(n) ELSE 0 END AS overall_mean,
        sum(weight) AS pooled_weight,
        CASE WHEN sum(weight) > 0 THEN sum(weight * mean) / sum(weight) ELSE 0 END AS pooled_mean,
        -- the scoring macros' shift (the mean of the class means): x - shift keeps its digits
        coalesce(avg(mean) FILTER (WHERE n > 0), 0) AS shift
    FROM {{ t.feature_stats }}
    GROUP BY {{ by_group(t) }}feature
), pooled AS (
    -- unweighted variance of each feature over all rows (scikit-learn's var(X, axis=0)),
    -- and the weighted one pooled over the classes
    SELECT
        {{ by_group(t, 's.') }}s.feature,
        any_value(o.pooled_mean) AS pooled_mean,
        CASE WHEN any_value(o.total_n) > 0 THEN (sum(s.n_m2) + sum(s.n * (s.n_mean - o.overall_mean) * (s.n_mean - o.overall_mean))) / any_value(o.total_n) ELSE 0 END AS variance,
        CASE WHEN any_value(o.pooled_weight) > 0 THEN (sum(s.m2) + sum(s.weight * (s.mean - o.pooled_mean) * (s.mean - o.pooled_mean))) / any_value(o.pooled_weight) ELSE 0 END AS pooled_spread
    FROM {{ t.feature_stats }} AS s
    JOIN per_feature AS o USING ({{ by_group(t) }}feature)
    GROUP BY {{ by_group(t, 's.') }}s.feature
), {{ alias }} AS (
    SELECT
        s.*,
        CASE WHEN s.n = 0 AND c.n > 0 THEN v.pooled_mean ELSE s.mean END AS theta,
        CASE WHEN s.n = 0 AND c.n > 0 THEN v.pooled_spread
             WHEN s.weight = 0 THEN 0 ELSE s.m2 / s.weight END AS spread,
        v.variance
    FROM {{ t.feature_stats }} AS s
    JOIN {{ t.class_stats }} AS c USING ({{ by_group(t) }}class)
    JOIN pooled AS v USING ({{ by_group(t) }}feature)
)
{%- endmacro %}

{#- A class's variance: its spread plus var_smoothing's epsilon. A feature that takes one
    value in every row has no spread anywhere; when epsilon is 0 as well (every feature of
    the model is constant, or var_smoothing = 0) it gets variance 1 in every class, so its
    term is the same for every class and changes no probability (scikit-learn divides by
    zero there and answers NaN). -#}
{% macro variance(spread, epsilon, overall) -%}
CASE WHEN {{ spread }} + {{ epsilon }} = 0 AND {{ overall }} = 0 THEN 1.0 ELSE {{ spread }} + {{ epsilon }} END
{%- endmacro %}

{% macro feature_params(t, p) %}
{{ sql.create_view(t.feature_params) }}
{{ moments(t) }}, smoothing AS (
    SELECT {{ by_group(t) }}{{ p.var_smoothing | lit }} * max(variance) AS epsilon
    FROM pooled
{% if t.get('groups') %}
    GROUP BY {% for g in t.groups %}{{ g.column }}{{ ", " if not loop.last }}{% endfor %}
{% endif %}
)
SELECT
    {{ by_group(t, 's.') }}s.class,
    s.feature,
    s.theta,
    {{ variance('s.spread', 'smoothing.epsilon', 's.variance') }} AS var,
    smoothing.epsilon
FROM s
{% if t.get('groups') %}
JOIN smoothing USING ({% for g in t.groups %}{{ g.column }}{{ ", " if not loop.last }}{% endfor %});
{% else %}
CROSS JOIN smoothing;
{% endif %}
{% endmacro %}

{% macro read_params(t) %}
SELECT c.class_index, p.feature, p.theta, p.var
FROM {{ t.feature_params }} AS p
JOIN {{ t.class_params }} AS c USING ({{ by_group(t) }}class)
{% endmacro %}

{#- class_constant as a window over the rows of read_params (`terms`) joined with the
    classes (`c`): catalog/read_params.sql#together reads the parameter view once. -#}
{% macro constant_over(terms, c) -%}
{{ c }}.log_prior - 0.5 * sum(ln(2 * pi() * {{ terms }}.var)) OVER (PARTITION BY {{ c }}.class_index)
{%- endmacro %}

{% macro class_constant(t) %}
-- per class: log prior - 0.5 * sum over features of log(2 pi var)
SELECT c.class_index, any_value(c.log_prior) - 0.5 * sum(ln(2 * pi() * p.var)) AS constant
FROM {{ t.feature_params }} AS p
JOIN {{ t.class_params }} AS c USING ({{ by_group(t) }}class)
GROUP BY c.class_index
{% endmacro %}

{#- 0.5 / var folded into one constant where it is a number (term_of): one multiplication
    instead of a division and a multiplication per term and row (about 30% of the scoring
    time on 20 features). Per-group parameters are columns, not numbers: they keep the
    division. #}
{% macro jll(c, p) %}{{ sum_of_terms(c, p, term_of) }}{% endmacro %}

{#- The part of the class constant that belongs to a feature (the class constant holds -0.5 log(2 pi var) per feature):
    explain adds it to the feature's term and takes it from the log prior. #}
{% macro share_of(term) -%}
-0.5 * ln(2 * pi() * {{ term.var | lit }})
{%- endmacro %}

{#- One feature's term of the joint log-likelihood (jll sums them; explain lists them). #}
{% macro term_of(term, p) -%}
    {% if term.var is number and term.var > 0 %}
    {% set quadratic = '- (' ~ num(term) ~ ' - ' ~ (term.theta | lit) ~ ') * (' ~ num(term) ~ ' - ' ~ (term.theta | lit) ~ ') * ' ~ ((0.5 / term.var) | lit) %}
    {% else %}
    {% set quadratic = '- 0.5 * (' ~ num(term) ~ ' - ' ~ (term.theta | lit) ~ ') * (' ~ num(term) ~ ' - ' ~ (term.theta | lit) ~ ') / ' ~ (term.var | lit) %}
    {% endif %}
    {#- a missing value also takes back the feature's -0.5 log(2 pi var) from the constant #}
{{ missing_aware(term, quadratic, p.missing, '0.5 * ln(2 * pi() * ' ~ (term.var | lit) ~ ')') }}
{%- endmacro %}

{#- The rows of the scoring macros' parameter table (sql/score/scoring_params.sql): the same
    numbers as feature_params and class_constant, in one pass over the statistics (every
    write that changes the statistics runs it again; the parameter views joined twice
    cost twice the time). Models without groups only: the arrays do not cover per-group models. #}
{% macro scoring_params(t, p) %}
{{ moments(t) }}, smoothing AS (
    -- var_smoothing times the largest unweighted variance of a feature over all rows
    SELECT {{ p.var_smoothing | lit }} * max(variance) AS epsilon FROM pooled
), terms AS (
    SELECT
        s.class,
        f.feature_index,
        s.theta,
        o.shift,
        {{ variance('s.spread', 'smoothing.epsilon', 's.variance') }} AS var
    FROM s
    JOIN {{ t.features }} AS f USING (feature)
    JOIN per_feature AS o USING (feature)
    CROSS JOIN smoothing
)
SELECT
    c.class_index,
    c.class,
    (SELECT fitted_at FROM {{ t.meta }}) AS fitted_at,
    any_value(c.log_prior) - 0.5 * sum(ln(2 * pi() * var)) AS constant,
    any_value(c.log_prior) - 0.5 * sum(ln(2 * pi() * var)) AS full_constant,
    list(shift ORDER BY feature_index) AS shift,
    list(CASE WHEN var > 0 THEN sqrt(0.5 / var) ELSE CAST('inf' AS DOUBLE) END ORDER BY feature_index) AS scale,
    list((theta - shift) * CASE WHEN var > 0 THEN sqrt(0.5 / var) ELSE CAST('inf' AS DOUBLE) END ORDER BY feature_index) AS target,
    -- a missing value gives back its 0.5 ln(2 pi var) from the constant
    list(CASE WHEN var > 0 THEN 0.5 * ln(2 * pi() * var) ELSE CAST('inf' AS DOUBLE) END ORDER BY feature_index) AS fallback
FROM terms
JOIN {{ t.class_params }} AS c USING (class)
GROUP BY c.class_index, c.class
{% endmacro %}
