{#- Helpers shared by the scoring statements (score.sql, standalone_score.sql, the macros).

    Per-group models in one statement: the source is LEFT JOINed to one row of
    parameters per group (alias __sqlnb_group), and each class's joint log-likelihood reads
    the family's parameters from that row (NULL when the group never saw the class). A row
    of a group unseen at fit time, or with a NULL group, finds no row: the pooled model,
    with its parameters inlined, scores it. -#}
{# A model's joint log-likelihood, summed in chunks of terms so that a wide model's
   expression stays shallow (DuckDB limits expression depth, and deep trees bind slowly). #}
{% macro chunked(family, model, p) %}
{% for chunk in model.chunks %}
{% if model.chunks | length > 1 %}({% endif %}{{ family.jll(chunk, p) | trim }}{% if model.chunks | length > 1 %}){{ "\n+ " if not loop.last }}{% endif %}
{% endfor %}
{% endmacro %}

{% macro class_jll(family, c, p) %}
{% if c.group_model %}
CASE
        WHEN {{ c.matched }} IS NULL THEN
            -- the pooled model
            {{ chunked(family, c, p) | trim | indent(12) }}
        ELSE
            -- the row's group's model
            {{ chunked(family, c.group_model, p) | trim | indent(12) }}
        END
{%- else %}
{{ chunked(family, c, p) | trim }}
{%- endif %}
{% endmacro %}
