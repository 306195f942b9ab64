{#-
  Complement naive Bayes (Rennie et al. 2003): each class is described by the counts of
  every *other* class. weight_cf = -log((all_f + alpha_f - count_cf) / sum_f (...)), or,
  with norm, the logged ratio divided by its sum over features. The class prior only
  counts when there is a single class, as in scikit-learn.
-#}
{% from 'families/common.sql' import num, list_of, columns_of, missing_aware, by_group, partition_by_group, sum_of_terms %}
{% import 'families/counts.sql' as counts %}

{% macro stats_table(t, class_type) %}{{ counts.stats_table(t, class_type) }}{% endmacro %}
{% macro batch_columns(features, weight) %}{{ counts.batch_columns(features, weight) }}{% endmacro %}
{% macro merge(t, features, weighted, sign=1) %}{{ counts.merge(t, features, sign) }}{% endmacro %}
{% macro merge_model(t, source, sign=1) %}{{ counts.merge_model(t, source, sign) }}{% endmacro %}
{% macro declare(t, features) %}{{ counts.declare(t, features) }}{% endmacro %}
{% macro batch_checks(t, features) %}{{ counts.negative_check(t, features, 'complement') }}{% endmacro %}
{% macro checks(t, features) %}{{ counts.nan_check(t) }}{% endmacro %}

{% macro feature_params(t, p) %}
{{ sql.create_view(t.feature_params) }}
WITH complement AS (
    SELECT
        {{ by_group(t, 's.') }}s.class,
        s.feature,
        sum(s.count) OVER (PARTITION BY {{ by_group(t, 's.') }}s.feature) AS feature_all,
        sum(s.count) OVER (PARTITION BY {{ by_group(t, 's.') }}s.feature) + f.alpha - s.count AS comp_count
    FROM {{ t.feature_stats }} AS s
    JOIN {{ t.features }} AS f USING (feature)
), logged AS (
    SELECT {{ by_group(t) }}class, feature, feature_all,
           {{ sql.ln('comp_count / sum(comp_count) OVER (PARTITION BY ' ~ by_group(t) ~ 'class)') }} AS logged
    FROM complement
)
SELECT
    {{ by_group(t) }}class,
    feature,
    feature_all,
    {% if p.norm %}
    logged / sum(logged) OVER (PARTITION BY {{ by_group(t) }}class) AS log_prob
    {% else %}
    -logged AS log_prob
    {% endif %}
FROM logged;
{% endmacro %}

{% macro read_params(t) %}{{ counts.read_params(t, 'p.log_prob AS coef') }}{% endmacro %}

{% macro class_constant(t) %}
SELECT class_index, CASE WHEN count(*) OVER ({{ partition_by_group(t) }}) = 1 THEN log_prior ELSE 0 END AS constant
FROM {{ t.class_params }}
{% endmacro %}

{% macro jll(c, p) %}{{ sum_of_terms(c, p, term_of) }}{% endmacro %}

{#- One feature's term of the joint log-likelihood (jll sums them; explain lists them). #}
{% macro term_of(term, p) -%}
{{ missing_aware(term, num(term) ~ ' * ' ~ (term.coef | lit), p.missing) }}
{%- endmacro %}
