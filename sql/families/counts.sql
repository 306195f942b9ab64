{#-
  Shared statistics of the count families (multinomial, complement, bernoulli):
  per class x feature the weighted sum of the feature's values. Bernoulli passes
  `binarize`, so the sum counts the rows whose value is above the threshold.
-#}
{% from 'common.sql' import num, list_of, columns_of, by_group %}

{% macro value(f, binarize) -%}
{% if binarize is none %}{{ num(f) }}{% else %}CAST({{ num(f) }} > {{ binarize | lit }} AS DOUBLE){% endif %}
{%- endmacro %}

{% macro stats_table(t, class_type) %}
CREATE TABLE {{ t.feature_stats }} (
{% for g in t.get('groups', []) %}
    {{ g.column }} {{ g.type }} NOT NULL,
{% endfor %}
    class   {{ class_type }} NOT NULL,
    feature VARCHAR NOT NULL,
    n       BIGINT NOT NULL,   -- rows with a value
    count   DOUBLE NOT NULL,   -- weighted sum of the values (scikit-learn's feature_count_)
    PRIMARY KEY ({{ by_group(t) }}class, feature)
);
{% endmacro %}

{% macro batch_columns(features, weight, binarize=none) %}
{% for f in features %}
    count({{ num(f) }}) AS {{ f.alias }}_n,
    min({{ num(f) }}) AS {{ f.alias }}_min,
    sum({% if weight %}{{ weight }} * {% endif %}{{ value(f, binarize) }}) AS {{ f.alias }}_s,
{% endfor %}
{% endmacro %}

{% macro merge(t, features) %}
INSERT INTO {{ t.feature_stats }} ({{ by_group(t) }}class, feature, n, count)
SELECT
    {{ by_group(t) }}class,
    unnest({{ list_of(features | map(attribute='name')) }}) AS feature,
    unnest({{ columns_of(features, '_n') }}) AS n,
    unnest([{% for f in features %}coalesce({{ f.alias }}_s, 0){{ ", " if not loop.last }}{% endfor %}]) AS count
FROM {{ t.batch }}
ON CONFLICT ({{ by_group(t) }}class, feature) DO UPDATE SET
    n = {{ t.feature_stats }}.n + excluded.n,
    count = {{ t.feature_stats }}.count + excluded.count;
{% endmacro %}

{% macro negative_check(t, features, family) %}
SELECT feature, 'has negative values, which {{ family }} naive Bayes cannot use' AS problem
FROM (
    SELECT
        unnest({{ list_of(features | map(attribute='name')) }}) AS feature,
        unnest({{ columns_of(features, '_min') }}) AS min_value
    FROM {{ t.batch }}
)
WHERE min_value < 0 OR isnan(min_value)
{% endmacro %}

{% macro nan_check(t) %}
SELECT feature, 'contains NaN or infinite values' AS problem
FROM {{ t.feature_stats }}
WHERE NOT isfinite(count)
{% endmacro %}

{% macro read_params(t, columns) %}
SELECT c.class_index, p.feature, {{ columns }}
FROM {{ t.feature_params }} AS p
JOIN {{ t.class_params }} AS c USING ({{ by_group(t) }}class)
{% endmacro %}
