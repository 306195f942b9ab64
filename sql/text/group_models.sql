{#- The pieces a per-group text model's statements share (text/score_group_terms.sql,
    text/explain_terms.sql, the scoring macros and to_sql's statement). `models`: the pooled
    model (index 0) then each group's, as text.read_group_models gives them; `groups`: the
    groups' alone. -#}

{#- Each document's model, by a join of its group columns with the groups' values;
    `doc`: the column of `documents` that numbers them. -#}
{% macro routes(documents, groups, group_columns, doc='__sqlnb_doc') -%}
    -- each document's model: its group's, the pooled model 0 for a group no fit saw or a
    -- NULL group column
    SELECT d.{{ doc }} AS doc, coalesce(g.__sqlnb_model, 0) AS model
    FROM {{ documents }} AS d
    LEFT JOIN (VALUES
{% for m in groups %}
        ({{ m.index | lit }}{% for v in m["values"] %}, {{ v }}{% endfor %}){{ "," if not loop.last }}
{% endfor %}
    ) AS g(__sqlnb_model{% for c in group_columns %}, __sqlnb_g{{ loop.index0 }}{% endfor %})
      ON {% for c in group_columns %}d.{{ c }} = g.__sqlnb_g{{ loop.index0 }}{{ " AND " if not loop.last }}{% endfor %}
{%- endmacro %}

{% macro vocabularies(models) -%}
{% for m in models %}
    SELECT {{ m.index | lit }} AS model, term, idf FROM {{ m.t.vocabulary }}
    {{ "UNION ALL" if not loop.last }}
{% endfor %}
{%- endmacro %}

{% macro coefficients(models, family) -%}
    -- every model's coefficients, numbered by the pooled model's class indexes
{% for m in models %}
    SELECT
        {{ m.index | lit }} AS model,
        feature,
{% if m.class_map is none %}
        class_index,
{% else %}
        CASE class_index{% for sub, pooled in m.class_map %} WHEN {{ sub | lit }} THEN {{ pooled | lit }}{% endfor %} END AS class_index,
{% endif %}
        coef
    FROM (
        {{ family.read_params(m.t) }}
    )
    {{ "UNION ALL" if not loop.last }}
{% endfor %}
{%- endmacro %}


{#- Per model, each class's constant in a column of its own (`__sqlnb_k<i>`, class order):
    the log prior and what every document shares; -inf for a class the group never saw,
    whose probability is then 0. -#}
{% macro constants(classes, groups) -%}
    SELECT *
    FROM (VALUES
        (0{% for c in classes %}, CAST({{ c.constant | lit }} AS DOUBLE){% endfor %}){{ "," if groups }}
{% for m in groups %}
        ({{ m.index | lit }}{% for c in classes %}, {% if m.constants.get(c.index) is none %}CAST('-inf' AS DOUBLE){% else %}CAST({{ m.constants[c.index] | lit }} AS DOUBLE){% endif %}{% endfor %}){{ "," if not loop.last }}
{% endfor %}
    ) AS k(model{% for c in classes %}, __sqlnb_k{{ loop.index0 }}{% endfor %})
{%- endmacro %}

{#- The coefficients of an inlined vocabulary (`inlined`: the relation of sql.inlined_terms
    with its model column; `coef_columns`: a column per class, NULL where the term's model
    never saw the class), as coefficients() gives them from the tables. -#}
{% macro inlined_coefficients(inlined, classes, coef_columns) -%}
{% for c in classes %}
    SELECT model, term AS feature, {{ c.index | lit }} AS class_index, {{ coef_columns[loop.index0] }} AS coef
    FROM {{ inlined }}
    WHERE {{ coef_columns[loop.index0] }} IS NOT NULL
    {{ "UNION ALL" if not loop.last }}
{% endfor %}
{%- endmacro %}
