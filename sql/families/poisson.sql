{#-
  Poisson naive Bayes: each feature is a count with a Poisson distribution per class.
  Statistics (shared with the other count families): per class x feature the weighted sum
  of the counts and the weight of the rows with a value.
  rate_cf = (sum_cf + alpha_f) / (weight_cf + alpha_f): the posterior mean of the rate
  under a Gamma(alpha_f, alpha_f) prior, i.e. alpha_f pseudo-rows with a count of one;
  alpha = 0 gives the plain mean.
  log P(x_f | c) = x_f log(rate_cf) - rate_cf - log(x_f!), with log(x!) = lgamma(x + 1).
-#}
{% from 'families/common.sql' import num, list_of, columns_of, missing_aware, by_group, sum_of_terms %}
{% import 'families/counts.sql' as counts %}

{% macro stats_table(t, class_type) %}{{ counts.stats_table(t, class_type) }}{% endmacro %}
{% macro merge(t, features, weighted, sign=1) %}{{ counts.merge(t, features, sign) }}{% endmacro %}
{% macro merge_model(t, source, sign=1) %}{{ counts.merge_model(t, source, sign) }}{% endmacro %}
{% macro declare(t, features) %}{{ counts.declare(t, features) }}{% endmacro %}

{% macro batch_columns(features, weight) %}
{{ counts.batch_columns(features, weight) }}
{% for f in features %}
    count(*) FILTER (WHERE {{ num(f) }} <> floor({{ num(f) }})) AS {{ f.alias }}_fractional,
{% endfor %}
{% endmacro %}

{% macro batch_checks(t, features) %}
{{ counts.negative_check(t, features, 'poisson') }}
UNION ALL
SELECT feature, 'has values that are not whole numbers, which are not counts' AS problem
FROM (
    SELECT
        {{ sql.unpivot([('feature', (features | map(attribute='name') | map('lit') | list)), ('fractional', (features | map(attribute='alias')) | each('{}_fractional'))]) }}
    FROM {{ t.batch }}
)
WHERE fractional > 0
{% endmacro %}

{% macro checks(t, features) %}
{{ counts.nan_check(t) }}
UNION ALL
SELECT DISTINCT feature, 'has a rate of zero (or no values) in a class: use alpha > 0' AS problem
FROM {{ t.feature_params }}
WHERE rate IS NULL OR NOT {{ sql.is_finite('rate') }} OR rate <= 0
{% endmacro %}

{% macro feature_params(t, p) %}
{{ sql.create_view(t.feature_params) }}
WITH rates AS (
    SELECT
        {{ by_group(t, 's.') }}s.class,
        s.feature,
        -- the weight of the rows where the feature is not missing
        (s.count + f.alpha) / ({{ counts.feature_weight('s', 'c') }} + f.alpha) AS rate
    FROM {{ t.feature_stats }} AS s
    JOIN {{ t.features }} AS f USING (feature)
    JOIN {{ t.class_stats }} AS c USING ({{ by_group(t) }}class)
)
SELECT {{ by_group(t) }}class, feature, rate, CASE WHEN rate > 0 THEN ln(rate) END AS log_rate
FROM rates;
{% endmacro %}

{% macro read_params(t) %}{{ counts.read_params(t, 'p.log_rate AS coef, p.rate') }}{% endmacro %}

{% macro class_constant(t) %}
SELECT class_index, log_prior AS constant FROM {{ t.class_params }}
{% endmacro %}

{% macro jll(c, p) %}{{ sum_of_terms(c, p, term_of) }}{% endmacro %}

{#- One feature's term of the joint log-likelihood (jll sums them; explain lists them). #}
{% macro term_of(term, p) -%}
{% set x = num(term) %}
{{- missing_aware(term, x ~ ' * ' ~ (term.coef | lit) ~ ' - ' ~ (term.rate | lit) ~ ' - ' ~ sql.log_gamma(x ~ ' + 1'), p.missing) }}
{%- endmacro %}
