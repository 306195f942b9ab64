{#- Scoring per-group models in one statement: the source is LEFT JOINed to one row of
    parameters per group (alias __sqlnb_group), and each class's joint log-likelihood reads
    the family's parameters from that row (NULL when the group never saw the class). A row
    of a group unseen at fit time, or with a NULL group, finds no row: the pooled model,
    with its parameters inlined, scores it. -#}
{% macro class_jll(family, c, p) %}
{% if c.group_model %}
CASE
        WHEN {{ c.matched }} IS NULL THEN
            -- the pooled model
            {{ family.jll(c, p) | trim | indent(12) }}
        ELSE
            -- the row's group's model
            {{ family.jll(c.group_model, p) | trim | indent(12) }}
        END
{%- else %}
{{ family.jll(c, p) | trim }}
{%- endif %}
{% endmacro %}
