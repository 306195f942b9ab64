-- What a cross-validation needs to know of its per-fold statistics.
{% if what == 'folds' %}
-- the folds that have labelled rows, in order (scikit-learn's PredefinedSplit order)
SELECT DISTINCT {{ t.groups[0].column }} FROM {{ t.class_stats }} ORDER BY 1
{% endif %}
