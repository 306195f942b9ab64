{#- What a text model's writes ask of its own tables, and the one they drop. -#}

{% macro analyzer(t, model) -%}
-- How model {{ model | comment }} reads its input (the caller checks first that the table
-- exists: a failed read would abort an open transaction).
SELECT input, options, n_documents FROM {{ t.analyzer }}
{%- endmacro %}

{% macro documents_fitted(t) -%}
-- Documents the model has been fitted on, over all its batches.
SELECT sum(n) FROM {{ t.class_stats }}
{%- endmacro %}

{% macro vocabulary_size(t) -%}
-- Number of terms in the vocabulary.
SELECT count(*) FROM {{ t.vocabulary }}
{%- endmacro %}

{% macro groups(table, groups, model) -%}
-- The groups of per-group text model {{ model | comment }}: index, then the group values.
SELECT group_index{% for g in groups %}, {{ g.column }}{% endfor %}

FROM {{ table }}
ORDER BY group_index
{%- endmacro %}

{% macro drop_terms(t) -%}
-- The first pass's per class x term statistics are not needed once the batch is built.
DROP TABLE IF EXISTS {{ t.terms }}
{%- endmacro %}
