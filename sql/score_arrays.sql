-- Score {{ source | comment }} with model {{ model | comment }} ({{ family_name | comment }} naive Bayes),
-- parameters as data: each row's features become one list, and each class's parameters
-- are lists ({% if params_table %}rows of the model's parameter table{% else %}bound parameters, $n{% endif %}), so the statement grows with
-- features + classes, not with their product. Then {{ output | comment }}.
{% set class_rows %}(SELECT list(__sqlnb_c ORDER BY __sqlnb_c.class_index) FROM {{ t.scoring_params }} AS __sqlnb_c){% endset %}
{% from 'scoring_helpers.sql' import outputs %}
{% import 'array_terms.sql' as terms %}
WITH rows AS (
    SELECT
        *,
        {{ terms.row_values(features, any_float, binarize) }} AS __sqlnb_values{% if params_table and kind == 'distance' %},
        -- one shift per feature, the same in every class row
        (SELECT any_value(shift) FROM {{ t.scoring_params }}) AS __sqlnb_shift{% endif %}

    FROM {{ source }}
), scored AS (
    SELECT
        *,
{% if kind == 'distance' %}
        -- centred on one shift per feature, so that far from the origin the differences
        -- keep their digits (the shift cancels exactly in x - theta)
{% if params_table %}
        -- (the shift is the same in every class row)
        list_transform(__sqlnb_values, lambda v, i: v - __sqlnb_shift[i]) AS __sqlnb_x,
{% else %}
        list_transform(__sqlnb_values, lambda v, i: v - {{ shift }}[i]) AS __sqlnb_x,
{% endif %}
{% else %}
        __sqlnb_values AS __sqlnb_x,
{% endif %}
{% if kind == 'counts' %}
        list_sum(list_transform(__sqlnb_values, lambda v: lgamma(v + 1))) AS __sqlnb_lgamma,
{% endif %}
        list_count(__sqlnb_values) = {{ features | length }} AS __sqlnb_complete
    FROM rows
{% if params_table %}
), joint_list AS (
    -- every class in one expression, over the parameter table's rows
    SELECT
    {% for column in keep %}
        {{ column }},
    {% endfor %}
        list_transform({{ class_rows }}, lambda __sqlnb_c:
            CASE WHEN __sqlnb_complete THEN {{ terms.raw(table_class, kind, '__sqlnb_x', '__sqlnb_lgamma') }}
            ELSE {{ terms.careful(table_class, kind, '__sqlnb_x', missing, names) }} END
        ) AS __sqlnb_jll
    FROM scored
), joint AS (
    SELECT
    {% for column in keep %}
        {{ column }},
    {% endfor %}
    {% for c in classes %}
        __sqlnb_jll[{{ loop.index }}] AS {{ c.jll }}{{ "," if not loop.last }}
    {% endfor %}
    FROM joint_list
{% else %}
), joint AS (
    SELECT
    {% for column in keep %}
        {{ column }},
    {% endfor %}
    {% for c in classes %}
        CASE WHEN __sqlnb_complete THEN {{ terms.raw(c, kind, '__sqlnb_x', '__sqlnb_lgamma') }} ELSE {{ terms.careful(c, kind, '__sqlnb_x', missing, names) }} END AS {{ c.jll }}{{ "," if not loop.last }}
    {% endfor %}
    FROM scored
{% endif %}
{{ outputs(classes, keep, output, prediction) }}
