{#-
  Multinomial naive Bayes: log P(x_f | c) = log(count_cf + alpha_f) - log(sum_f (count_cf + alpha_f)).
  The joint log-likelihood is linear in the counts: log prior + sum_f x_f * log_prob_cf.
-#}
{% from 'common.sql' import num, list_of, columns_of, sum_of %}
{% import 'families/counts.sql' as counts %}

{% macro stats_table(t, class_type) %}{{ counts.stats_table(t, class_type) }}{% endmacro %}
{% macro batch_columns(features, weight) %}{{ counts.batch_columns(features, weight) }}{% endmacro %}
{% macro merge(t, features, weighted) %}{{ counts.merge(t, features) }}{% endmacro %}
{% macro batch_checks(t, features) %}{{ counts.negative_check(t, features, 'multinomial') }}{% endmacro %}
{% macro checks(t, features) %}{{ counts.nan_check(t) }}{% endmacro %}

{% macro feature_params(t, p) %}
CREATE OR REPLACE VIEW {{ t.feature_params }} AS
SELECT
    s.class,
    s.feature,
    ln(s.count + f.alpha) - ln(sum(s.count + f.alpha) OVER (PARTITION BY s.class)) AS log_prob
FROM {{ t.feature_stats }} AS s
JOIN {{ t.features }} AS f USING (feature);
{% endmacro %}

{% macro read_params(t) %}{{ counts.read_params(t, 'p.log_prob AS coef') }}{% endmacro %}

{% macro class_constant(t) %}
SELECT class_index, log_prior AS constant FROM {{ t.class_params }}
{% endmacro %}

{% macro jll(c, p) %}
{{ c.constant | lit }}
{% call(term) sum_of(c.terms) %}+ {{ num(term) }} * {{ term.coef | lit }}{% endcall %}
{% endmacro %}
