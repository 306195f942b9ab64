-- Score {{ source | comment }} with model {{ model | comment }} ({{ family_name | comment }} naive Bayes),
-- parameters as data: each row's features become one list, and each class's parameters
-- arrive as bound lists ($n), so the statement grows with features + classes, not with
-- their product. Then {{ output | comment }}.
{% from 'scoring_helpers.sql' import outputs %}
{#- A class's joint log-likelihood. `raw` is the fast form (a list function over the whole
    row), used when no feature is missing; `careful` treats each missing value as the
    model's `missing` setting says. -#}
{% macro raw(c) -%}
{% if kind == 'gaussian' -%}
${{ c.constant }} - list_distance(list_transform(__sqlnb_x, lambda v, i: v * ${{ c.scale }}[i]), ${{ c.target }}) ** 2
{%- elif kind == 'poisson' -%}
${{ c.constant }} + list_dot_product(__sqlnb_x, ${{ c.weights }}) - __sqlnb_lgamma
{%- else -%}
${{ c.constant }} + list_dot_product(__sqlnb_x, ${{ c.weights }})
{%- endif %}
{%- endmacro %}
{% macro careful(c) -%}
{% if missing == 'error' -%}
error('missing value (NULL or NaN) in feature ' || ${{ names }}[list_position(list_transform(__sqlnb_x, lambda v: v IS NULL), true)])
{%- elif kind == 'gaussian' -%}
${{ c.full_constant }} + list_sum(list_transform(__sqlnb_x, lambda v, i: coalesce(-((v * ${{ c.scale }}[i] - ${{ c.target }}[i]) ** 2), ${{ c.fallback }}[i])))
{%- elif kind == 'poisson' -%}
${{ c.full_constant }} + list_sum(list_transform(__sqlnb_x, lambda v, i: coalesce(v * ${{ c.weights }}[i] - ${{ c.fallback }}[i] - lgamma(v + 1), 0)))
{%- else -%}
${{ c.full_constant }} + list_sum(list_transform(__sqlnb_x, lambda v, i: coalesce(v * ${{ c.weights }}[i], ${{ c.fallback }}[i])))
{%- endif %}
{%- endmacro %}
{#- The row's features in the model's order, as DOUBLE. A NaN is missing: one test in a
    lambda over the list (spelt isfinite/isinf, see common.sql's `num`), not one per column. -#}
{% set values -%}
[{% for f in features %}{% if f.double %}{{ f.column }}{% else %}CAST({{ f.column }} AS DOUBLE){% endif %}{{ ", " if not loop.last }}{% endfor %}]
{%- endset %}
{% if any_float %}
{% set values = 'list_transform(' ~ values ~ ', lambda v: CASE WHEN isfinite(v) OR isinf(v) THEN v END)' %}
{% endif %}
{% if binarize is not none %}
{% set values = 'list_transform(' ~ values ~ ', lambda v: CAST(v > ' ~ (binarize | lit) ~ ' AS DOUBLE))' %}
{% endif %}
WITH rows AS (
    SELECT *, {{ values }} AS __sqlnb_values
    FROM {{ source }}
), scored AS (
    SELECT
        *,
{% if kind == 'gaussian' %}
        -- centred on one shift per feature, so that far from the origin the differences
        -- keep their digits (the shift cancels exactly in x - theta)
        list_transform(__sqlnb_values, lambda v, i: v - ${{ shift }}[i]) AS __sqlnb_x,
{% else %}
        __sqlnb_values AS __sqlnb_x,
{% endif %}
{% if kind == 'poisson' %}
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
        CASE WHEN __sqlnb_complete THEN {{ raw(c) }} ELSE {{ careful(c) }} END AS {{ c.jll }}{{ "," if not loop.last }}
    {% endfor %}
    FROM scored
{{ outputs(classes, keep, output, prediction) }}
