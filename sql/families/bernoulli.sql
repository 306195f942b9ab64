{#-
  Bernoulli naive Bayes: features are binarized at `binarize` (unless it is None).
  log P(x_f = 1 | c) = log(count_cf + alpha_f) - log(weight_cf + 2 alpha_f), where weight_cf
  is the weight of the class's rows where the feature is not missing (the class weight when
  nothing is missing); the joint log-likelihood is
  log prior + sum_f log_neg_prob + sum_f x_f * (log_prob - log_neg_prob), and a missing
  x_f takes its log_neg_prob back out.
-#}
{% from 'families/common.sql' import num, list_of, columns_of, missing_aware, by_group, sum_of_terms %}
{% import 'families/counts.sql' as counts %}

{% macro stats_table(t, class_type) %}{{ counts.stats_table(t, class_type) }}{% endmacro %}
{% macro batch_columns(features, weight, binarize) %}{{ counts.batch_columns(features, weight, binarize) }}{% endmacro %}
{% macro merge(t, features, weighted, sign=1) %}{{ counts.merge(t, features, sign) }}{% endmacro %}
{% macro merge_model(t, source, sign=1) %}{{ counts.merge_model(t, source, sign) }}{% endmacro %}
{% macro declare(t, features) %}{{ counts.declare(t, features) }}{% endmacro %}
{% macro checks(t, features) %}{{ counts.nan_check(t) }}{% endmacro %}

{% macro feature_params(t, p) %}
{{ sql.create_view(t.feature_params) }}
WITH smoothed AS (
    SELECT
        {{ by_group(t, 's.') }}s.class,
        s.feature,
        -- the denominator is the weight of the rows where the feature is not missing
        {{ sql.ln('s.count + f.alpha') }} - {{ sql.ln(counts.feature_weight('s', 'c') ~ ' + 2 * f.alpha') }} AS log_prob
    FROM {{ t.feature_stats }} AS s
    JOIN {{ t.features }} AS f USING (feature)
    JOIN {{ t.class_stats }} AS c USING ({{ by_group(t) }}class)
)
SELECT {{ by_group(t) }}class, feature, log_prob, {{ sql.ln('1 - exp(log_prob)') }} AS log_neg_prob
FROM smoothed;
{% endmacro %}

{% macro read_params(t) %}{{ counts.read_params(t, 'p.log_prob - p.log_neg_prob AS coef, p.log_neg_prob') }}{% endmacro %}

{#- class_constant as a window over read_params' rows (see gaussian.sql's). -#}
{% macro constant_over(terms, c) -%}
{{ c }}.log_prior + sum({{ terms }}.log_neg_prob) OVER (PARTITION BY {{ c }}.class_index)
{%- endmacro %}

{% macro class_constant(t) %}
SELECT c.class_index, any_value(c.log_prior) + sum(p.log_neg_prob) AS constant
FROM {{ t.feature_params }} AS p
JOIN {{ t.class_params }} AS c USING ({{ by_group(t) }}class)
GROUP BY c.class_index
{% endmacro %}

{% macro jll(c, p) %}{{ sum_of_terms(c, p, term_of) }}{% endmacro %}

{#- The part of the class constant that belongs to a feature (the class constant holds log(1 - p) per feature):
    explain adds it to the feature's term and takes it from the log prior. #}
{% macro share_of(term) -%}
{{ term.log_neg_prob | lit }}
{%- endmacro %}

{#- One feature's term of the joint log-likelihood (jll sums them; explain lists them). #}
{% macro term_of(term, p) -%}
{#- a missing value also takes back the feature's log_neg_prob from the constant #}
{{ missing_aware(term, counts.value(term, p.binarize) ~ ' * ' ~ (term.coef | lit), p.missing, '(0 - ' ~ (term.log_neg_prob | lit) ~ ')') }}
{%- endmacro %}
