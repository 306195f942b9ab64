{#-
  Complement naive Bayes (Rennie et al. 2003): each class is described by the counts of
  every *other* class. weight_cf = -log((all_f + alpha_f - count_cf) / sum_f (...)), or,
  with norm, the logged ratio divided by its sum over features. The class prior only
  counts when there is a single class, as in scikit-learn.
-#}
{% from 'common.sql' import num, list_of, columns_of, sum_of %}
{% import 'families/counts.sql' as counts %}

{% macro stats_table(t, class_type) %}{{ counts.stats_table(t, class_type) }}{% endmacro %}
{% macro batch_columns(features, weight) %}{{ counts.batch_columns(features, weight) }}{% endmacro %}
{% macro merge(t, features, weighted) %}{{ counts.merge(t, features) }}{% endmacro %}
{% macro batch_checks(t, features) %}{{ counts.negative_check(t, features, 'complement') }}{% endmacro %}
{% macro checks(t, features) %}{{ counts.nan_check(t) }}{% endmacro %}

{% macro feature_params(t, p) %}
CREATE OR REPLACE VIEW {{ t.feature_params }} AS
WITH complement AS (
    SELECT
        s.class,
        s.feature,
        sum(s.count) OVER (PARTITION BY s.feature) AS feature_all,
        sum(s.count) OVER (PARTITION BY s.feature) + f.alpha - s.count AS comp_count
    FROM {{ t.feature_stats }} AS s
    JOIN {{ t.features }} AS f USING (feature)
), logged AS (
    SELECT class, feature, feature_all,
           ln(comp_count / sum(comp_count) OVER (PARTITION BY class)) AS logged
    FROM complement
)
SELECT
    class,
    feature,
    feature_all,
    {% if p.norm %}
    logged / sum(logged) OVER (PARTITION BY class) AS log_prob
    {% else %}
    -logged AS log_prob
    {% endif %}
FROM logged;
{% endmacro %}

{% macro read_params(t) %}{{ counts.read_params(t, 'p.log_prob AS coef') }}{% endmacro %}

{% macro class_constant(t) %}
SELECT class_index, CASE WHEN count(*) OVER () = 1 THEN log_prior ELSE 0 END AS constant
FROM {{ t.class_params }}
{% endmacro %}

{% macro jll(c, p) %}
{{ c.constant | lit }}
{% call(term) sum_of(c.terms) %}+ {{ num(term) }} * {{ term.coef | lit }}{% endcall %}
{% endmacro %}
