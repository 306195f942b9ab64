-- Score {{ source | comment }} with model {{ model | comment }} ({{ family_name | comment }} naive Bayes),
-- parameters as data: each row's features become one list, and each class's parameters
-- arrive as bound lists ($n), so the statement grows with features + classes, not with
-- their product. Then {{ output | comment }}.
{% from 'scoring_helpers.sql' import outputs %}
{% import 'array_terms.sql' as terms %}
WITH rows AS (
    SELECT *, {{ terms.row_values(features, any_float, binarize) }} AS __sqlnb_values
    FROM {{ source }}
), scored AS (
    SELECT
        *,
{% if kind == 'distance' %}
        -- centred on one shift per feature, so that far from the origin the differences
        -- keep their digits (the shift cancels exactly in x - theta)
        list_transform(__sqlnb_values, lambda v, i: v - {{ shift }}[i]) AS __sqlnb_x,
{% else %}
        __sqlnb_values AS __sqlnb_x,
{% endif %}
{% if kind == 'counts' %}
        list_sum(list_transform(__sqlnb_values, lambda v: lgamma(v + 1))) AS __sqlnb_lgamma,
{% endif %}
        list_count(__sqlnb_values) = {{ features | length }} AS __sqlnb_complete
    FROM rows
), joint AS (
    SELECT
    {% for column in keep %}
        {{ column }},
    {% endfor %}
    {% for c in classes %}
        CASE WHEN __sqlnb_complete THEN {{ terms.raw(c, kind, '__sqlnb_x', '__sqlnb_lgamma') }} ELSE {{ terms.careful(c, kind, '__sqlnb_x', missing, names) }} END AS {{ c.jll }}{{ "," if not loop.last }}
    {% endfor %}
    FROM scored
{{ outputs(classes, keep, output, prediction) }}
