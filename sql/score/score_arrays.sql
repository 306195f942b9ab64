-- Score {{ source | comment }} with model {{ model | comment }} ({{ family_name | comment }} naive Bayes),
-- parameters as data: each row's features become one list, and each class's parameters
-- are lists (bound parameters, $n, or literals in a planned statement), so the statement grows with
-- features + classes, not with their product. The classes' joint log-likelihoods make one
-- list per row, from which {{ output | comment }} is read.{% if keep %} The input's columns pass through
-- as `*` in as few levels as the computation needs: binding each level costs time per column.{% endif %}

{% import 'score/array_terms.sql' as terms %}
{% import 'score/scoring_helpers.sql' as step %}
{% set x = '__sqlnb_x' %}
{% set jll = '__sqlnb_jll' %}
{% set helpers = [x, jll] %}
{% if expanded %}{% set helpers = helpers + [x ~ '_square'] %}{% endif %}
{% if kind == 'counts' %}{% set helpers = helpers + [x ~ '_lgamma'] %}{% endif %}
WITH rows AS (
    -- the row's list, a missing value (NULL or NaN) as NaN, and what the fast form reads of
    -- it, computed here once per row: DuckDB's common-subexpression pass does not look
    -- inside the CASE below. List functions refuse a list holding NULL, even in rows a CASE
    -- discards (they check the whole chunk): NaN is what the list holds instead.
    SELECT
        {% if keep %}*,{% endif %}
        {{ terms.row_list(features, binarize, shift, per_column, nulls) }} AS {{ x }}
{%- if expanded %},
        -- (a lambda that captures nothing: faster than one product per column, measured)
        list_transform({{ x }}, lambda v: v * v) AS {{ x }}_square
{%- endif %}
{%- if kind == 'counts' %},
        list_sum(list_transform({{ x }}, lambda v: lgamma(v + 1))) AS {{ x }}_lgamma
{%- endif %}
    FROM {{ source }}
), joint AS (
    -- a row holding a NaN has a missing value: it takes the careful form, which applies
    -- `missing` (one CASE for the classes' list: DuckDB evaluates the branch for those
    -- rows alone)
    SELECT
        {% if keep %}*,{% endif %}
{% if careful | default(true) %}
        CASE WHEN list_contains({{ x }}, 'NaN'::DOUBLE) THEN [
{% for c in classes %}
            {{ terms.careful(c, kind, 'list_transform(' ~ x ~ ", lambda v: nullif(v, 'NaN'::DOUBLE))", missing, names) }}{{ "," if not loop.last }}
{% endfor %}
        ] ELSE [
{% for c in classes %}
            {{ terms.fast(c, 'expanded' if expanded else kind, x) }}{{ "," if not loop.last }}
{% endfor %}
        ] END AS {{ jll }}
{% else %}
        -- (no feature of the input is missing: the fast form alone)
        [
{% for c in classes %}
            {{ terms.fast(c, 'expanded' if expanded else kind, x) }}{{ "," if not loop.last }}
{% endfor %}
        ] AS {{ jll }}
{% endif %}
    FROM rows
)
SELECT
    {% if keep %}* EXCLUDE ({{ helpers | join(', ') }}),{% endif %}

{% if output == 'predict' %}
    -- argmax; ties go to the first class in sorted order
    {{ step.list_argmax(classes, jll) }} AS {{ prediction }}
{% else %}
{{ step.list_outputs(classes, output, jll) }}
{% endif %}
FROM joint
