{#-
  Multinomial naive Bayes: log P(x_f | c) = log(count_cf + alpha_f) - log(sum_f (count_cf + alpha_f)).
  The joint log-likelihood is linear in the counts: log prior + sum_f x_f * log_prob_cf.
-#}
{% from 'families/common.sql' import num, list_of, columns_of, missing_aware, by_group, sum_of_terms %}
{% import 'families/counts.sql' as counts %}

{% macro stats_table(t, class_type) %}{{ counts.stats_table(t, class_type) }}{% endmacro %}
{% macro batch_columns(features, weight) %}{{ counts.batch_columns(features, weight) }}{% endmacro %}
{% macro merge(t, features, weighted, sign=1) %}{{ counts.merge(t, features, sign) }}{% endmacro %}
{% macro merge_model(t, source, sign=1) %}{{ counts.merge_model(t, source, sign) }}{% endmacro %}
{% macro declare(t, features) %}{{ counts.declare(t, features) }}{% endmacro %}
{% macro batch_checks(t, features) %}{{ counts.negative_check(t, features, 'multinomial') }}{% endmacro %}
{% macro checks(t, features) %}{{ counts.nan_check(t) }}{% endmacro %}

{% macro feature_params(t, p) %}
-- Each class's total is a GROUP BY joined back, not a window: DuckDB's window over the
-- class x feature rows costs about twice as much (the view is read at every predict).
{{ sql.create_view(t.feature_params) }}
WITH smoothed AS (
    SELECT {{ by_group(t, 's.') }}s.class, s.feature, s.count + f.alpha AS count
    FROM {{ t.feature_stats }} AS s
    JOIN {{ t.features }} AS f USING (feature)
), totals AS (
    SELECT {{ by_group(t) }}class, sum(count) AS total
    FROM smoothed
    GROUP BY {{ by_group(t) }}class
)
SELECT
    {{ by_group(t, 's.') }}s.class,
    s.feature,
    {{ sql.ln('s.count') }} - {{ sql.ln('totals.total') }} AS log_prob
FROM smoothed AS s
JOIN totals ON s.class = totals.class{% for g in t.get('groups', []) %} AND s.{{ g.column }} = totals.{{ g.column }}{% endfor %};
{% endmacro %}

{% macro read_params(t) %}{{ counts.read_params(t, 'p.log_prob AS coef') }}{% endmacro %}

{% macro class_constant(t) %}
SELECT class_index, log_prior AS constant FROM {{ t.class_params }}
{% endmacro %}

{% macro jll(c, p) %}{{ sum_of_terms(c, p, term_of) }}{% endmacro %}

{#- One feature's term of the joint log-likelihood (jll sums them; explain lists them). #}
{% macro term_of(term, p) -%}
{{ missing_aware(term, num(term) ~ ' * ' ~ (term.coef | lit), p.missing) }}
{%- endmacro %}
