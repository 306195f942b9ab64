{#- The pieces a per-group text model's statements share (text/score_group_terms.sql,
    text/explain_terms.sql). `models`: the pooled model (index 0) then each group's, as
    text.read_group_models gives them; `groups`: the groups' alone. -#}

{% macro routes(documents, groups, group_columns) -%}
    -- each document's model: its group's, the pooled model 0 for a group no fit saw or a
    -- NULL group column
    SELECT d.__sqlnb_doc AS doc, coalesce(g.__sqlnb_model, 0) AS model
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
