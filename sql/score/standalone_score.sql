-- Model {{ model_comment | comment }}: {{ family_name | comment }} naive Bayes, {{ classes | length | comment }} classes, {{ n_features | comment }} features.
-- Fitted at {{ fitted_at | comment }} (sqlnb {{ version | comment }}). Every parameter is embedded below, so
-- this statement needs no sqlnb table: it runs on any {{ engine_title | comment }} connection that can read the source.
{% import family_template as family %}
{% import 'score/scoring_helpers.sql' as scoring %}
{% from 'fit/sums.sql' import sum_exp %}
{% import 'text/analyzer.sql' as analyzer %}
{% from 'families/counts.sql' import value %}
{% import 'text/group_models.sql' as gm %}
{% set text = text | default(none) %}
{# `text.groups` (a per-group text model's): every model's vocabulary in the literal, each
   term with its model's number; each row is routed to its group's model (the pooled model
   0 for a group no fit saw or a NULL group column), whose constants it takes. #}
{% set text_groups = text.get('groups') if text else none %}
{% set lookups = lookups | default([]) %}
{% set numbered = group_table or text or lookups %}
WITH source AS (
{% if numbered %}
    -- the join below may reorder rows: number them here and sort by that number at the end
    SELECT *, {{ sql.row_id() }} AS __sqlnb_row FROM {{ source }}
{% else %}
    SELECT * FROM {{ source }}
{% endif %}
{% if text %}
), coefficients AS (
    -- the vocabulary: each term's idf and its coefficient in each class, as one JSON
    -- literal (read far faster than as many rows of VALUES; the numbers are written with
    -- every digit and read back exactly)
    {{ sql.inlined_terms(text.parameters, classes | map(attribute='coef') | list, text_groups is not none) | trim }}
{% if text_groups is not none %}
), routes AS (
{{ gm.routes('source', text_groups, text.group_columns, '__sqlnb_row') }}
), constants AS (
{{ gm.constants(classes, text_groups) }}
{% endif %}
), cells AS (
    -- one row per document and distinct term, with the term's count in the document
    {{ analyzer.document_terms('source', '__sqlnb_row', text.column, text.a) }}
), weighted AS (
    -- the vectorizer's output for the terms the model knows; the others are ignored
    SELECT
        c.doc,
        {{ analyzer.normalised(analyzer.tf('c.count', text.a) ~ ' * k.idf', 'c.doc', text.a) }} AS x,
    {% for c in classes %}
        k.{{ c.coef }}{{ "," if not loop.last }}
    {% endfor %}
    FROM cells AS c
{% if text_groups is not none %}
    JOIN routes AS r ON r.doc = c.doc
    JOIN coefficients AS k ON k.model = r.model AND k.term = c.term
{% else %}
    JOIN coefficients AS k USING (term)
{% endif %}
), sums AS (
    SELECT
        doc,
    {% for c in classes %}
        sum({{ value({'column': 'x'}, text.binarize) }} * {{ c.coef }}) AS {{ c.sum }}{{ "," if not loop.last }}
    {% endfor %}
    FROM weighted
    GROUP BY doc
{% endif %}
{% if group_table %}
), group_parameters ({{ group_table.columns | join(", ") }}) AS (
    -- one model per group: a row of parameters each (NULL for a class the group never saw)
    VALUES
    {% for row in group_table.rows %}
        ({{ row | join(", ") }}){{ "," if not loop.last }}
    {% endfor %}
{% endif %}
), joint AS (
    -- joint log-likelihood log P(x, class) of each class
    SELECT
        source.*,
    {% for c in classes %}
        -- class {{ c.comment | comment }}
        {% if text %}
        {% if text_groups is not none %}__sqlnb_constants.__sqlnb_k{{ loop.index0 }}{% else %}{{ c.constant | lit }}{% endif %} + coalesce(__sqlnb_sums.{{ c.sum }}, 0) AS {{ c.jll }}{{ "," if not loop.last }}
        {% else %}
        {{ scoring.class_jll(family, c, p) | trim }} AS {{ c.jll }}{{ "," if not loop.last }}
        {% endif %}
    {% endfor %}
    FROM source
    {% if text %}
    -- a document without a known term keeps the class constants
    LEFT JOIN sums AS __sqlnb_sums ON __sqlnb_sums.doc = source.__sqlnb_row
    {% endif %}
    {% if text_groups is not none %}
    -- the constants of the row's model
    JOIN routes AS __sqlnb_route ON __sqlnb_route.doc = source.__sqlnb_row
    JOIN constants AS __sqlnb_constants ON __sqlnb_constants.model = __sqlnb_route.model
    {% endif %}
    {% if lookups %}
    -- the coefficients of the categorical features with many categories, one row each
    {{ scoring.lookup_joins(lookups) | trim }}
    {% endif %}
    {% if group_table %}
    -- rows of a group unseen at fit time (or with a NULL group) find no parameters here
    LEFT JOIN group_parameters AS __sqlnb_group
        ON {% for parameter, value in group_table.join %}{{ parameter }} = {{ value }}{{ " AND " if not loop.last }}{% endfor %}

    {% endif %}
), normalised AS (
    SELECT
        *,
        {% if classes | length == 1 %}
        {{ classes[0].jll }} AS __sqlnb_max
        {% else %}
        {{ fn.greatest }}({% for c in classes %}{{ c.jll }}{{ ", " if not loop.last }}{% endfor %}) AS __sqlnb_max
        {% endif %}
    FROM joint
), summed AS (
    SELECT
        *,
        -- log-sum-exp around the largest term
        {% if grouped_model %}
        -- (a class the row's group never saw has no term)
        __sqlnb_max + ln({{ sum_exp(classes | map(attribute='jll') | list, True) }}) AS __sqlnb_lse
        {% else %}
        __sqlnb_max + ln({{ sum_exp(classes | map(attribute='jll') | list) }}) AS __sqlnb_lse
        {% endif %}
    FROM normalised
)
SELECT
    {{ sql.all_except(classes | map(attribute='jll') | list + (['__sqlnb_row'] if numbered else []) + ['__sqlnb_max', '__sqlnb_lse']) }},
{{ scoring.output_columns(classes, output, prediction, grouped_model) }}
FROM summed
{% if numbered %}
ORDER BY __sqlnb_row
{% endif %}
