-- Score {{ source | truncate(200) | comment }} with model {{ model | comment }} ({{ family_name | comment }} naive Bayes):
-- one joint log-likelihood expression per class, then {{ output | comment }}.
{% import family_template as family %}
{% from 'score/scoring_helpers.sql' import chunked, outputs, lookup_joins, position_columns %}
{% set lookups = lookups | default([]) %}
{% set positions = positions | default([]) %}
{% set gather = gather | default(none) %}
{#- categorical features scored by a join (see compiler.joined_lookups): the rows are
    numbered first, and put back in their order at the end -#}
{% set from_source %}
{% if lookups %}
(
        SELECT *
        FROM (SELECT *, row_number() OVER () AS __sqlnb_order FROM {{ source }}) AS __sqlnb_source
    {{ lookup_joins(lookups) | trim }}
    ) AS __sqlnb_joined
{%- else %}
{{ source }}
{%- endif %}
{% endset %}
{% if positions or gather %}
{#- each inline categorical feature's position, once per row (every class reads it) -#}
{% set from_source %}
(
        SELECT
            *,
{{ position_columns(positions, gather) | trim }}
        FROM {{ from_source | trim }}
    ) AS __sqlnb_coded
{%- endset %}
{% endif %}
{% if gather %}
{#- each class's list of the gathered features' coefficients: one row, joined to every row -#}
{% set from_source %}
{{ from_source | trim }}
    CROSS JOIN (
        SELECT
        {% for l in gather.coefs %}
            {{ l['values'] | doubles }} AS {{ l.name }}{{ "," if not loop.last }}
        {% endfor %}
    ) AS __sqlnb_gather_coefs
{%- endset %}
{% endif %}
{% set keep = keep + (['__sqlnb_order'] if lookups else []) %}
{% if robust %}
WITH raw AS (
    -- each class's log-likelihood on the raw values: a NaN in a floating-point column
    -- makes it NaN, and only those rows are scored again with NaN as a missing value
    SELECT
        *,
    {% for c in classes %}
        {{ chunked(family, c, p) | trim }} AS {{ ('__sqlnb_raw_' ~ c.index) | ident }}{{ "," if not loop.last }}
    {% endfor %}
    FROM {{ from_source | trim }}
), joint AS (
    SELECT
    {% for column in keep %}
        {{ column }},
    {% endfor %}
    {% for c in robust %}
    {% set raw = ('__sqlnb_raw_' ~ c.index) | ident %}
        CASE WHEN {{ sql.is_finite(raw) }} THEN {{ raw }} ELSE {{ chunked(family, c, p) | trim }} END AS {{ c.jll }}{{ "," if not loop.last }}
    {% endfor %}
    FROM raw
{% else %}
WITH joint AS (
    SELECT
    {% for column in keep %}
        {{ column }},
    {% endfor %}
    {% for c in classes %}
        {{ chunked(family, c, p) | trim }} AS {{ c.jll }}{{ "," if not loop.last }}
    {% endfor %}
    FROM {{ from_source | trim }}
{% endif %}
{{ outputs(classes, keep, output, prediction, ('__sqlnb_order' if lookups and not keep_order | default(false) else none)) }}
