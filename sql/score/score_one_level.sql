-- Score {{ source | truncate(200) | comment }} with model {{ model | comment }} ({{ family_name | comment }} naive Bayes),
-- parameters as bound lists ($n), in one level over the source: the row's features become
-- one list, named once by a one-element list_transform (a `let`), and each class's joint
-- log-likelihood is one list function over it.{% if keep %} The input's columns pass through once, as
-- `*`: binding and planning cost time per column at every level a statement passes them through.{% endif %}

{% import 'score/array_terms.sql' as terms %}
{% import 'score/scoring_helpers.sql' as step %}
{% set n = features | length %}
{% set jll = '__sqlnb_jll' %}
{#- the row's list, a missing value (NULL or NaN) as NaN: a NaN makes the fast form NaN, and
    list_inner_product refuses a NULL (for the whole chunk, whatever a CASE keeps); one
    lambda over the columns, as short as the statement can be -#}
{% set row = terms.row_list(features, binarize, shift, false) %}
{#- what the fast form reads, `z`: the row's list (x), then for the expanded Gaussian its
    squares, for the Poisson the sum of lgamma(x + 1); each class's weights are as long -#}
{% set x = '__sqlnb_x' %}
{% macro z_of(x) -%}
{% if kind == 'expanded' -%}
list_concat({{ x }}, list_transform({{ x }}, lambda v: v * v))
{%- elif kind == 'counts' -%}
list_concat({{ x }}, [list_sum(list_transform({{ x }}, lambda v: lgamma(v + 1)))])
{%- else -%}
{{ x }}
{%- endif %}
{%- endmacro %}
{% set z = none if kind in ('distance', 'linear') else z_of(x) %}
{% set careful_x = 'list_transform(' ~ x ~ ", lambda v: nullif(v, 'NaN'::DOUBLE))" %}
{% set careful_kind = 'distance' if kind == 'expanded' else kind %}
{% macro fast(c, z) -%}
{% if kind == 'distance' -%}
{{ c.constant }} - list_distance(list_transform({{ z }}, lambda v, i: v * {{ c.scale }}[i]), {{ c.target }}) ** 2
{%- elif kind == 'linear' -%}
{{ c.constant }} + list_inner_product({{ z }}, {{ c.weights }})
{%- else -%}
{{ c.constant }} + list_inner_product({{ z }}, {{ c.joined }})
{%- endif %}
{%- endmacro %}
{% set fast_list -%}
[{% for c in classes %}{{ fast(c, x if z is none else '__sqlnb_z') }}{{ ", " if not loop.last }}{% endfor %}]
{%- endset %}
{% if z is not none %}
{% set fast_list = 'list_transform([' ~ z ~ '], lambda __sqlnb_z: ' ~ fast_list ~ ')[1]' %}
{% endif %}
{#- a row with a missing value (a NaN in its list) takes the careful form, which applies
    `missing`; the others one list function per class -#}
{% if kind != 'distance' and missing != 'error' %}
{#- `missing="ignore"` outside the Gaussian's differences is linear too: the fast form over
    the row with 0 for a missing value, plus one weight per feature (`careful`) times 1
    where it is missing, which gives back what the constant counted for it -#}
{% set careful_list -%}
list_transform([list_transform({{ x }}, lambda v: CASE WHEN isnan(v) THEN 0 ELSE v END)], lambda __sqlnb_x0: list_transform([list_concat({{ z_of('__sqlnb_x0') }}, list_transform({{ x }}, lambda v: CAST(isnan(v) AS DOUBLE)))], lambda __sqlnb_m: [{% for c in classes %}{{ c.constant }} + list_inner_product(__sqlnb_m, {{ c.careful }}){{ ", " if not loop.last }}{% endfor %}])[1])[1]
{%- endset %}
{% else %}
{% set careful_list -%}
[{% for c in classes %}{{ terms.careful(c, careful_kind, careful_x, missing, names) }}{{ ", " if not loop.last }}{% endfor %}]
{%- endset %}
{% endif %}
{% set classes_list -%}
CASE WHEN list_contains({{ x }}, 'NaN'::DOUBLE) THEN {{ careful_list }} ELSE {{ fast_list }} END
{%- endset %}
{% if output == 'predict' %}
{#- argmax; ties go to the first class in sorted order -#}
{% set value = 'list_transform([' ~ classes_list ~ '], lambda ' ~ jll ~ ': ' ~ step.list_argmax(classes, jll) ~ ')[1]' %}
{% else %}
{% set value = classes_list %}
{% endif %}
{% set scored = 'list_transform([' ~ row ~ '], lambda ' ~ x ~ ': ' ~ value ~ ')[1]' %}
{{ step.list_statement(scored, source, keep, classes, output, jll, prediction) }}
