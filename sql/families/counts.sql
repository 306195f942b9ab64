{#-
  Shared statistics of the count families (multinomial, complement, bernoulli):
  per class x feature the weighted sum of the feature's values. Bernoulli passes
  `binarize`, so the sum counts the rows whose value is above the threshold.
-#}
{% from 'families/common.sql' import num, list_of, columns_of, by_group %}
{% from 'update/incremental.sql' import signed, added %}

{% macro value(f, binarize) -%}
{% if binarize is none %}{{ num(f) }}{% else %}CAST({{ num(f) }} > {{ binarize | lit }} AS DOUBLE){% endif %}
{%- endmacro %}

{% macro stats_table(t, class_type) %}
CREATE TABLE {{ t.feature_stats }} (
{% for g in t.get('groups', []) %}
    {{ g.column }} {{ g.type }} NOT NULL,
{% endfor %}
    class   {{ class_type }} NOT NULL,
    feature {{ sql.type('VARCHAR') }} NOT NULL,
    n       BIGINT NOT NULL,   -- rows with a value
    count   DOUBLE NOT NULL,   -- weighted sum of the values (scikit-learn's feature_count_)
    -- summed sample weight of the rows with a value (NULL: sparse fit)
    weight  DOUBLE{{ sql.primary_key([by_group(t) ~ 'class', 'feature']) }}
);
{% endmacro %}

{% macro batch_columns(features, weight, binarize=none) %}
{% for f in features %}
{% if weight is none and binarize is none and (f.type | kind) == 'integer' %}
    {#- integer counts summed as integers: exact, and 20% faster than casting each value #}
    count({{ f.column }}) AS {{ f.alias }}_n,
    min({{ f.column }}) AS {{ f.alias }}_min,
    sum({{ f.column }}) AS {{ f.alias }}_s,
    CAST(count({{ f.column }}) AS DOUBLE) AS {{ f.alias }}_w,
{% else %}
    count({{ num(f) }}) AS {{ f.alias }}_n,
    min({{ num(f) }}) AS {{ f.alias }}_min,
    sum({% if weight %}{{ weight }} * {% endif %}{{ value(f, binarize) }}) AS {{ f.alias }}_s,
    {% if weight %}sum({{ weight }}) FILTER (WHERE {{ num(f) }} IS NOT NULL){% else %}CAST(count({{ num(f) }}) AS DOUBLE){% endif %} AS {{ f.alias }}_w,
{% endif %}
{% endfor %}
{% endmacro %}

{% macro merge(t, features, sign=1) %}
{{ upsert(t, batch_counts(t, features), sign) }}
{% endmacro %}

{% macro batch_counts(t, features) %}
SELECT
    {{ by_group(t) }}class,
    {{ sql.unpivot([('feature', (features | map(attribute='name') | map('lit') | list)), ('n', (features | map(attribute='alias')) | each('{}_n')), ('count', (features | map(attribute='alias')) | each('coalesce({}_s, 0)')), ('weight', (features | map(attribute='alias')) | each('coalesce({}_w, 0)'))]) }}
FROM {{ t.batch }}
{% endmacro %}

{# Fold another model's statistics (same features) into this one. #}
{% macro merge_model(t, source, sign=1) %}
{% set counts %}
SELECT {{ by_group(t) }}class, feature, n, count, weight FROM {{ source.feature_stats }}
{% endset %}
{{ upsert(t, counts, sign) }}
{% endmacro %}

{# Zero counts for declared classes that have no rows yet (scikit-learn's `classes`). #}
{% macro declare(t, features) %}
{% set rows %}
SELECT c.class, f.feature, 0, 0, 0
FROM {{ t.class_stats }} AS c
CROSS JOIN {{ t.features }} AS f
WHERE f.feature IN ({% for f in features %}{{ f.name | lit }}{{ ", " if not loop.last }}{% endfor %})
{% endset %}
{{ sql.insert_missing(t.feature_stats, ['class', 'feature'], ['n', 'count', 'weight'], rows, t.get('next_feature_stats')) }};
{% endmacro %}

{# Add (sign = 1) or subtract (sign = -1) per class x feature counts. #}
{% macro upsert(t, counts, sign) %}
{% set keys = (t.get('groups', []) | map(attribute='column') | list) + ['class', 'feature'] %}
{% set rows %}
SELECT {{ by_group(t) }}class, feature, {{ signed('n', sign) }}, {{ signed('count', sign) }}, {{ signed('weight', sign) }}
FROM (
{{ counts }}
) AS counts
{% endset %}
{% call(column, old, new) sql.upsert(t.feature_stats, keys, ['n', 'count', 'weight'], rows, t.get('next_feature_stats'), fresh=t.get('fresh', false)) -%}
{% if column == 'n' %}{{ old }}.n + {{ new }}.n{% else %}{{ added(old ~ '.' ~ column, new ~ '.' ~ column, sign) }}{% endif %}
{%- endcall %};
{% endmacro %}

{% macro negative_check(t, features, family) %}
{#- once per class where it has a negative value: the problems' reader names each once #}
SELECT feature, 'has negative values; {{ family }} naive Bayes needs non-negative counts' AS problem
FROM (
    SELECT
        {{ sql.unpivot([('feature', (features | map(attribute='name') | map('lit') | list)), ('min_value', (features | map(attribute='alias')) | each('{}_min'))]) }}
    FROM {{ t.batch }}
)
WHERE min_value < 0 OR isnan(min_value)
{% endmacro %}

{% macro nan_check(t) %}
SELECT feature, 'contains NaN or infinite values' AS problem
FROM {{ t.feature_stats }}
WHERE NOT {{ sql.is_finite('count') }}
{% endmacro %}

{# The per-feature weight: rows with a value, or (sparse fits, which have no missing
   values) the class weight. Identical to the class weight when nothing is missing. #}
{% macro feature_weight(s, c) %}CASE WHEN {{ s }}.n = {{ c }}.n OR {{ s }}.weight IS NULL THEN {{ c }}.weight ELSE {{ s }}.weight END{% endmacro %}

{% macro read_params(t, columns) %}
SELECT c.class_index, p.feature, {{ columns }}
FROM {{ t.feature_params }} AS p
JOIN {{ t.class_params }} AS c USING ({{ by_group(t) }}class)
{% endmacro %}
