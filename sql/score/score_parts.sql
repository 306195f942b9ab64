-- Score the rows below with model {{ model | comment }} (one distribution per column), part
-- by part: each level below adds the joint log-likelihoods of some of the model's parts, as
-- the statement of that family alone computes them; this one sums them and gives {{ output | comment }}.
{% from 'score/scoring_helpers.sql' import outputs %}
WITH joint AS (
    SELECT
    {% for column in keep %}
        {{ column }},
    {% endfor %}
    {% for c in classes %}
        {{ c.sum | join(" + ") }} AS {{ c.jll }}{{ "," if not loop.last }}
    {% endfor %}
    FROM (
{{ source }}
    ) AS __sqlnb_parts
{{ outputs(classes, keep, output, prediction, order) }}
