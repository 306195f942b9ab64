{#- Scoring per-group models: a class's joint log-likelihood comes from the row's group's
    model (NULL when the group never saw the class); a row of a group unseen at fit time,
    or with a NULL group, is scored by the pooled model. -#}
{% macro class_jll(family, c, p) %}
{% if c.group_model %}
CASE
        WHEN {{ c.matched }} IS NULL THEN
            -- the pooled model
            {{ family.jll(c, p) | trim | indent(12) }}
        ELSE
            -- the row's group's model: its parameters are columns of the joined row
            {{ family.jll(c.group_model, p) | trim | indent(12) }}
        END
{%- elif c.groups %}
CASE
{% for g in c.groups %}
        WHEN {% for column, value in g.match %}{{ column }} = {{ value }}{{ " AND " if not loop.last }}{% endfor %} THEN
        {% if g.model is none %}
            NULL
        {% else %}
            {{ family.jll(g.model, p) | trim | indent(12) }}
        {% endif %}
{% endfor %}
        ELSE
            {{ family.jll(c, p) | trim | indent(12) }}
        END
{%- else %}
{{ family.jll(c, p) | trim }}
{%- endif %}
{% endmacro %}
