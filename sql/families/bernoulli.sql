{#-
  Bernoulli naive Bayes: features are binarized at `binarize` (unless it is None).
  log P(x_f = 1 | c) = log(count_cf + alpha_f) - log(weight_c + 2 alpha_f); the joint
  log-likelihood is log prior + sum_f log_neg_prob + sum_f x_f * (log_prob - log_neg_prob).
-#}
{% from 'common.sql' import num, list_of, columns_of, sum_of %}
{% import 'families/counts.sql' as counts %}

{% macro stats_table(t, class_type) %}{{ counts.stats_table(t, class_type) }}{% endmacro %}
{% macro batch_columns(features, weight, binarize) %}{{ counts.batch_columns(features, weight, binarize) }}{% endmacro %}
{% macro merge(t, features, weighted) %}{{ counts.merge(t, features) }}{% endmacro %}
{% macro checks(t, features) %}{{ counts.nan_check(t) }}{% endmacro %}

{% macro feature_params(t, p) %}
CREATE OR REPLACE VIEW {{ t.feature_params }} AS
WITH smoothed AS (
    SELECT
        s.class,
        s.feature,
        ln(s.count + f.alpha) - ln(c.weight + 2 * f.alpha) AS log_prob
    FROM {{ t.feature_stats }} AS s
    JOIN {{ t.features }} AS f USING (feature)
    JOIN {{ t.class_stats }} AS c USING (class)
)
SELECT class, feature, log_prob, ln(1 - exp(log_prob)) AS log_neg_prob
FROM smoothed;
{% endmacro %}

{% macro read_params(t) %}{{ counts.read_params(t, 'p.log_prob - p.log_neg_prob AS coef') }}{% endmacro %}

{% macro class_constant(t) %}
SELECT c.class_index, any_value(c.log_prior) + sum(p.log_neg_prob) AS constant
FROM {{ t.feature_params }} AS p
JOIN {{ t.class_params }} AS c USING (class)
GROUP BY c.class_index
{% endmacro %}

{% macro jll(c, p) %}
{{ c.constant | lit }}
{% call(term) sum_of(c.terms) %}+ {{ counts.value(term, p.binarize) }} * {{ term.coef | lit }}{% endcall %}
{% endmacro %}
