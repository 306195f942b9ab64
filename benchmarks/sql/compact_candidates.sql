{#- Gaussian scoring statements and macros of a few shapes, for bench_compact_scoring.py:
    `features` (quoted names), `shift` (one literal per feature, or none), `classes` (each
    `k` its constant, `a` its squares' weights, `b` its linear weights, `w` its careful
    matrix row, as DOUBLE[] constants), `labels` (the classes' labels as SQL). -#}

{% macro row(features, shift) -%}
[{% for f in features %}{% if shift %}({{ f }} - {{ shift[loop.index0] }}){% else %}{{ f }}{% endif %}{{ ", " if not loop.last }}{% endfor %}]
{%- endmacro %}

{% macro argmax(labels) -%}
{{ labels }}[list_position(jll, list_max(jll))]
{%- endmacro %}

{# The row's list only. #}
{% macro row_only(source, features, shift) -%}
SELECT {{ row(features, shift) }} AS x FROM {{ source }}
{%- endmacro %}

{# Two inner products per class with literal lists (the expanded Gaussian). #}
{% macro two_lists(source, features, shift, classes, labels) -%}
WITH rows AS (
    SELECT {{ row(features, shift) }} AS x, list_transform(x, lambda v: v * v) AS x2 FROM {{ source }}
), joint AS (
    SELECT [{% for c in classes %}{{ c.k }} - list_inner_product(x2, {{ c.a }}) + list_inner_product(x, {{ c.b }}){{ ", " if not loop.last }}{% endfor %}] AS jll
    FROM rows
)
SELECT {{ argmax(labels) }} AS prediction FROM joint
{%- endmacro %}

{# One inner product per class over [x, x^2]. #}
{% macro one_list(source, features, shift, classes, labels) -%}
WITH rows AS (
    SELECT list_concat(x, list_transform(x, lambda v: v * v)) AS z
    FROM (SELECT {{ row(features, shift) }} AS x FROM {{ source }})
), joint AS (
    SELECT [{% for c in classes %}{{ c.k }} + list_inner_product(z, {{ c.ba }}){{ ", " if not loop.last }}{% endfor %}] AS jll
    FROM rows
)
SELECT {{ argmax(labels) }} AS prediction FROM joint
{%- endmacro %}

{# The lists read from a one-row table (a cross join), not written in the statement. #}
{% macro table_lists(source, features, classes, labels, table) -%}
WITH rows AS (
    SELECT {{ row(features, none) }} AS x, list_transform(x, lambda v: v * v) AS x2 FROM {{ source }}
), joint AS (
    SELECT [{% for c in classes %}p.k{{ loop.index0 }} - list_inner_product(x2, p.a{{ loop.index0 }}) + list_inner_product(x, p.b{{ loop.index0 }}){{ ", " if not loop.last }}{% endfor %}] AS jll
    FROM rows, {{ table }} AS p
)
SELECT {{ argmax(labels) }} AS prediction FROM joint
{%- endmacro %}

{# The one-row table the statement above reads. #}
{% macro lists_table(table, classes) -%}
CREATE OR REPLACE TEMP TABLE {{ table }} AS SELECT
{% for c in classes %}{{ c.k }} AS k{{ loop.index0 }}, {{ c.a }} AS a{{ loop.index0 }}, {{ c.b }} AS b{{ loop.index0 }}{{ ", " if not loop.last }}{% endfor %}
{%- endmacro %}

{#- Macros of one row `r`: its features cast to a STRUCT and a MAP (as sqlnb's), checked
    against the feature names when the list holds a NULL. -#}
{% macro row_cast(features) -%}
map_values(CAST(CAST(r AS STRUCT({% for f in features %}{{ f }} DOUBLE{{ ", " if not loop.last }}{% endfor %})) AS MAP(VARCHAR, DOUBLE)))
{%- endmacro %}

{% macro names_check(features, names, keys, values) -%}
list_count({{ values }}) = {{ features | length }} OR list_has_all(list_transform({% if keys %}struct_keys(r){% else %}map_keys(CAST(r AS MAP(VARCHAR, VARCHAR))){% endif %}, lambda k: lower(k)), {{ names }})
{%- endmacro %}

{# The nested form: NaN made NULL, centred on the shift, then [1] + x' + x'^2 + flags. #}
{% macro nested_body(values, weights, shift) -%}
list_transform([list_transform({{ values }}, lambda v: CASE WHEN isfinite(v) OR isinf(v) THEN v END)], lambda __v:
    list_transform([list_transform(__v, lambda v, i: coalesce(v{% if shift %} - {{ shift }}[i]{% endif %}, 0))], lambda x0:
        list_transform([list_concat([1.0], x0, list_transform(x0, lambda v: v * v), list_transform(__v, lambda v: CAST(v IS NULL AS DOUBLE)))], lambda z:
            list_transform({{ weights }}, lambda w: list_inner_product(w, z)))[1])[1])[1]
{%- endmacro %}

{# The flat form: x', x'^2 and the flags each one lambda over the row's list. #}
{% macro flat_body(values, weights) -%}
list_transform([list_concat([1.0],
    list_transform({{ values }}, lambda q: CASE WHEN isnan(q) IS NOT FALSE THEN 0.0 ELSE q END),
    list_transform({{ values }}, lambda q: CASE WHEN isnan(q) IS NOT FALSE THEN 0.0 ELSE q * q END),
    list_transform({{ values }}, lambda q: CAST(isnan(q) IS NOT FALSE AS DOUBLE)))], lambda z:
    list_transform({{ weights }}, lambda w: list_inner_product(w, z)))[1]
{%- endmacro %}

{# `form`: "checked_nested" (the row cast twice: check, then the nested body), "shared_flat"
   (cast once, named; the check and the flat body read it), "unchecked_flat" (no check). #}
{% macro joint_macro(name, form, features, names, keys, weights, shift) -%}
CREATE OR REPLACE MACRO {{ name }}(r) AS
{% if form == 'checked_nested' %}
    CASE WHEN {{ names_check(features, names, keys, row_cast(features)) }}
    THEN {{ nested_body(row_cast(features), weights, shift) }} ELSE error('lacks a feature') END
{% elif form == 'shared_flat' %}
    list_transform([{{ row_cast(features) }}], lambda rv:
        CASE WHEN {{ names_check(features, names, keys, 'rv') }}
        THEN {{ flat_body('rv', weights) }} ELSE error('lacks a feature') END)[1]
{% else %}
    list_transform([{{ row_cast(features) }}], lambda rv: {{ flat_body('rv', weights) }})[1]
{% endif %}
{%- endmacro %}

{% macro predict_macro(name, joint, labels) -%}
CREATE OR REPLACE MACRO {{ name }}(r) AS list_transform([{{ joint }}(r)], lambda jll: {{ argmax(labels) }})[1]
{%- endmacro %}

{#- The statement `what` names, with this template's context. -#}
{% if what == 'floor' %}SELECT * FROM {{ source }}
{%- elif what == 'row_only' %}{{ row_only(source, features, shift) }}
{%- elif what == 'two_lists' %}{{ two_lists(source, features, shift, classes, labels) }}
{%- elif what == 'one_list' %}{{ one_list(source, features, shift, classes, labels) }}
{%- elif what == 'table_lists' %}{{ table_lists(source, features, classes, labels, table) }}
{%- elif what == 'lists_table' %}{{ lists_table(table, classes) }}
{%- elif what == 'joint_macro' %}{{ joint_macro(name, form, features, names, keys, weights, shift_list) }}
{%- elif what == 'predict_macro' %}{{ predict_macro(name, joint, labels) }}
{%- elif what == 'call' %}SELECT {{ name }}(t) FROM {{ source }} AS t
{%- endif %}
