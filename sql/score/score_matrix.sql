-- Score {{ source | comment }} with model {{ model | comment }} ({{ family_name | comment }} naive Bayes),
-- an input without a missing value, by one weight matrix (a row per class): each row's
-- features become one list, and the classes' joint log-likelihoods one list function over
-- the matrix, an inner product per class. The statement is the same size whatever the
-- number of classes, and short to plan: DuckDB 2.0.1 plans a prepared statement again at
-- every EXECUTE.
{% import 'score/array_terms.sql' as terms %}
{% import 'score/scoring_helpers.sql' as step %}
{% set jll = '__sqlnb_jll' %}
{% set joint = terms.matrix_joint(terms.row_values(features, false, binarize), weights, shift, kind, false) %}
{% if output == 'predict' %}
{#- argmax; ties go to the first class in sorted order -#}
{% set joint = 'list_transform([' ~ joint ~ '], lambda ' ~ jll ~ ': ' ~ step.list_argmax(classes, jll) ~ ')[1]' %}
{% endif %}
{{ step.list_statement(joint, source, keep, classes, output, jll, prediction) }}
