-- Score {{ source | comment }} with model {{ model | comment }} ({{ family_name | comment }} naive Bayes),
-- parameters as data: each row's features become one list, and each class's parameters
-- are lists (bound parameters, $n, or literals in a planned statement), so the statement grows with
-- features + classes, not with their product. The classes' joint log-likelihoods make one
-- list per row, from which {{ output | comment }} is read. The input's columns pass through
-- as `*`: few levels, none of which lists them, keep a one-row statement quick to plan.
{% import 'array_terms.sql' as terms %}
{% set helpers = ['__sqlnb_values', '__sqlnb_x', '__sqlnb_complete', '__sqlnb_jll'] %}
{% if kind == 'counts' %}{% set helpers = helpers + ['__sqlnb_lgamma'] %}{% endif %}
{% if expanded %}{% set helpers = helpers + ['__sqlnb_x_zero', '__sqlnb_x_square'] %}{% endif %}
WITH rows AS (
    SELECT
        *,
        {{ terms.row_values(features, any_float, binarize) }} AS __sqlnb_values
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
{% if expanded %}
), centred AS (
    -- the centred row and its squares, a missing value as 0 (list_inner_product refuses
    -- NULL); the rows that have one are scored by the careful form
    SELECT
        *,
        list_transform(__sqlnb_x, lambda v: coalesce(v, 0)) AS __sqlnb_x_zero,
        list_transform(__sqlnb_x, lambda v: coalesce(v * v, 0)) AS __sqlnb_x_square
    FROM scored
{% endif %}
), joint AS (
    SELECT
        *,
        [
{% for c in classes %}
            CASE WHEN __sqlnb_complete THEN {{ terms.raw(c, 'expanded' if expanded else kind, '__sqlnb_x', '__sqlnb_lgamma') }} ELSE {{ terms.careful(c, kind, '__sqlnb_x', missing, names) }} END{{ "," if not loop.last }}
{% endfor %}
        ] AS __sqlnb_jll
    FROM {{ 'centred' if expanded else 'scored' }}
{% if output in ('proba', 'log_proba') %}
), normalised AS (
    -- log-sum-exp around the largest term
    SELECT
        *,
        list_max(__sqlnb_jll) + ln(list_sum(list_transform(__sqlnb_jll, lambda v: exp(v - list_max(__sqlnb_jll))))) AS __sqlnb_lse
    FROM joint
{% set helpers = helpers + ['__sqlnb_lse'] %}
{% endif %}
)
SELECT
    {% if keep %}* EXCLUDE ({{ helpers | join(', ') }}),{% endif %}

{% if output == 'predict' %}
    -- argmax; ties go to the first class in sorted order
    [{% for c in classes %}{{ c.label }}{{ ", " if not loop.last }}{% endfor %}][list_position(__sqlnb_jll, list_max(__sqlnb_jll))] AS {{ prediction }}
{% else %}
{% for c in classes %}
    {% if output == 'joint' %}
    __sqlnb_jll[{{ loop.index }}]
    {% elif output == 'log_proba' %}
    __sqlnb_jll[{{ loop.index }}] - __sqlnb_lse
    {% else %}
    exp(__sqlnb_jll[{{ loop.index }}] - __sqlnb_lse)
    {% endif %}
    AS {{ c.output }}{{ "," if not loop.last }}
{% endfor %}
{% endif %}
FROM {{ 'normalised' if output in ('proba', 'log_proba') else 'joint' }}
