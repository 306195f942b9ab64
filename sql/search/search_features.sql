-- The features of the cross-validation model {{ model | comment }} with one candidate's
-- per-feature hyperparameters (alpha, min_categories).
{{ sql.delete_all(t.features) }};
{% include 'fit/insert_features.sql' %}
