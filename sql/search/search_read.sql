-- What a cross-validation needs to know of its per-fold statistics.
{% if what == 'folds' %}
-- the folds that have labelled rows, in order (scikit-learn's PredefinedSplit order)
SELECT DISTINCT {{ t.groups[-1].column }} FROM {{ t.class_stats }} ORDER BY 1
{% endif %}
{% if what == 'keys' %}
-- the (group, fold) pairs that have labelled rows, in order
{% set keys %}{% for g in t.groups %}{{ g.column }}{{ ", " if not loop.last }}{% endfor %}{% endset %}
SELECT DISTINCT {{ keys }}
FROM {{ t.class_stats }} ORDER BY {{ keys }}
{% endif %}
{% if what == 'single_fold_groups' %}
-- groups whose labelled rows all fall in one fold: no rows to train on when it is held out
SELECT {% for g in t.groups[:-1] %}{{ g.column }}{{ ", " if not loop.last }}{% endfor %}
FROM {{ t.class_stats }}
GROUP BY ALL
HAVING count(DISTINCT {{ t.groups[-1].column }}) < 2
ORDER BY ALL
LIMIT 5
{% endif %}
{% if what == 'labels' %}
-- the classes of every labelled row, in class-index order
SELECT class FROM {{ pooled.class_params }} ORDER BY class_index
{% endif %}
{% if what == 'complete' %}
-- whether no labelled row misses a feature value: every class's feature counts equal its
-- row count (a feature's count of rows with a value is at most the class's rows)
SELECT (SELECT coalesce(sum(n), 0) FROM {{ pooled.feature_stats }})
    = (SELECT coalesce(sum(n), 0) FROM {{ pooled.class_stats }}) * {{ n_features | lit }}
{% endif %}
