-- What a cross-validation needs to know of its per-fold statistics.
{% if what == 'folds' %}
-- the folds that have labelled rows, in order (scikit-learn's PredefinedSplit order)
SELECT DISTINCT {{ t.groups[0].column }} FROM {{ t.class_stats }} ORDER BY 1
{% endif %}
{% if what == 'complete' %}
-- whether no labelled row misses a feature value: every class's feature counts equal its
-- row count (a feature's count of rows with a value is at most the class's rows)
SELECT (SELECT coalesce(sum(n), 0) FROM {{ pooled.feature_stats }})
    = (SELECT coalesce(sum(n), 0) FROM {{ pooled.class_stats }}) * {{ n_features | lit }}
{% endif %}
