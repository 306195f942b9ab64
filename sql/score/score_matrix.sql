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
SELECT
    {% if keep %}*,{% endif %}
    -- argmax; ties go to the first class in sorted order
    list_transform([{{ joint }}], lambda {{ jll }}: {{ step.list_argmax(classes, jll) }})[1] AS {{ prediction }}
FROM {{ source }}
{% else %}
SELECT
    {% if keep %}* EXCLUDE ({{ jll }}),{% endif %}
{{ step.list_outputs(classes, output, jll) }}
FROM (
    SELECT
        {% if keep %}*,{% endif %}
        {{ joint }} AS {{ jll }}
    FROM {{ source }}
)
{% endif %}
