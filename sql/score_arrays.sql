-- Score {{ source | comment }} with model {{ model | comment }} ({{ family_name | comment }} naive Bayes),
-- parameters as data: each row's features become one list, and each class's parameters
-- are lists (bound parameters, $n, or literals in a planned statement), so the statement grows with
-- features + classes, not with their product. The classes' joint log-likelihoods make one
-- list per row, from which {{ output | comment }} is read.{% if keep %} The input's columns pass through
-- as `*` in as few levels as the computation needs: binding each level costs time per column.{% endif %}

{% import 'array_terms.sql' as terms %}
{% set x = '__sqlnb_x' %}
{% set jll = '__sqlnb_jll' %}
{% set lse = 'list_max(' ~ jll ~ ') + ln(list_sum(list_transform(' ~ jll ~ ', lambda v: exp(v - list_max(' ~ jll ~ ')))))' %}
{% set helpers = [x, x ~ '_zero', x ~ '_complete', jll] %}
{% if expanded %}{% set helpers = helpers + [x ~ '_square'] %}{% endif %}
{% if kind == 'counts' %}{% set helpers = helpers + [x ~ '_lgamma'] %}{% endif %}
{#- the careful form reads the row with a NaN as NULL (missing) -#}
{% set careful_x = 'list_transform(' ~ x ~ ", lambda v: nullif(v, 'NaN'::DOUBLE))" if any_float and binarize is none else x %}
WITH rows AS (
    -- the row's list (a NaN kept as NaN) and what the fast form reads of it, computed
    -- here once per row: DuckDB's common-subexpression pass does not look inside the
    -- classes' CASE. List functions refuse a NULL even in rows a CASE discards (they
    -- check the whole chunk), so the fast form reads the list with 0 for NULL.
    SELECT
        {% if keep %}*,{% endif %}
        {{ terms.row_list(features, binarize, shift, per_column) }} AS {{ x }},
        {{ terms.row_list(features, binarize, shift, per_column, zero=true) }} AS {{ x }}_zero,
{% if expanded %}
        list_transform({{ x }}_zero, lambda v: v * v) AS {{ x }}_square,
{% endif %}
{% if kind == 'counts' %}
        list_sum(list_transform({{ x }}, lambda v: lgamma(v + 1))) AS {{ x }}_lgamma,
{% endif %}
        list_count({{ x }}) = {{ features | length }}{% if any_float and binarize is none %} AND NOT list_contains({{ x }}, 'NaN'::DOUBLE){% endif %} AS {{ x }}_complete
    FROM {{ source }}
), joint AS (
    -- a row with a missing value takes the careful form, which applies `missing`
    SELECT
        {% if keep %}*,{% endif %}
        [
{% for c in classes %}
            CASE WHEN {{ x }}_complete THEN {{ terms.fast(c, 'expanded' if expanded else kind, x) }} ELSE {{ terms.careful(c, kind, careful_x, missing, names) }} END{{ "," if not loop.last }}
{% endfor %}
        ] AS {{ jll }}
    FROM rows
)
SELECT
    {% if keep %}* EXCLUDE ({{ helpers | join(', ') }}),{% endif %}

{% if output == 'predict' %}
    -- argmax; ties go to the first class in sorted order
    [{% for c in classes %}{{ c.label }}{{ ", " if not loop.last }}{% endfor %}][list_position({{ jll }}, list_max({{ jll }}))] AS {{ prediction }}
{% else %}
{% for c in classes %}
    {% if output == 'joint' %}
    {{ jll }}[{{ loop.index }}]
    {% elif output == 'log_proba' %}
    -- log-sum-exp around the largest term (the same expression in every class: computed once)
    {{ jll }}[{{ loop.index }}] - ({{ lse }})
    {% else %}
    exp({{ jll }}[{{ loop.index }}] - ({{ lse }}))
    {% endif %}
    AS {{ c.output }}{{ "," if not loop.last }}
{% endfor %}
{% endif %}
FROM joint
