-- The features of the cross-validation model {{ model | comment }} with one candidate's
-- per-feature hyperparameters (alpha, min_categories).
DELETE FROM {{ t.features }};
{% include 'fit/insert_features.sql' %}
