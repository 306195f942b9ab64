-- Score documents with per-group text model {{ model | comment }} ({{ family_name | comment }} naive
-- Bayes): each row is routed to its group's text model (its own vocabulary, idf and
-- coefficients), a row of a group no fit saw (or of a NULL group) to the pooled model
-- (model 0). `keep`: the source's columns to keep (none: all, with the statement's own,
-- for evaluate). Then as score_terms.sql: the documents' (term, value) cells joined with the
-- coefficients of their model, summed per document, and {{ output | comment }}.
{% import 'text/analyzer.sql' as analyzer %}
{% import family_template as family %}
{% import 'text/group_models.sql' as gm %}
{% from 'families/counts.sql' import value %}
{% from 'score/scoring_helpers.sql' import outputs %}
{% set models = [{'index': 0, 't': t, 'class_map': none}] + groups %}
WITH documents AS {{ sql.materialized() }}(
    SELECT *, {{ sql.row_id() }} AS __sqlnb_doc
    FROM {{ source }}
), routes AS (
{{ gm.routes('documents', groups, group_columns) }}
), cells AS (
    -- one row per document and distinct term, with the term's count in the document
    {{ analyzer.document_terms('documents', '__sqlnb_doc', column, a) }}
), vocabularies AS (
{{ gm.vocabularies(models) }}
), weighted AS (
    -- the vectorizer of the row's model; the terms it does not know are ignored
    SELECT
        c.doc,
        r.model,
        c.term,
        {{ analyzer.normalised(analyzer.tf('c.count', a) ~ ' * v.idf', 'c.doc', a) }} AS x
    FROM cells AS c
    JOIN routes AS r ON r.doc = c.doc
    JOIN vocabularies AS v ON v.model = r.model AND v.term = c.term
), parameters AS (
{{ gm.coefficients(models, family) }}
), coefficients AS (
    -- one row per model and term, one coefficient column per class
    SELECT
        model,
        feature AS term,
{% for c in classes %}
        sum(CASE WHEN class_index = {{ c.index | lit }} THEN coef END) AS {{ c.coef }}{{ "," if not loop.last }}
{% endfor %}
    FROM parameters
    -- the class constants below were read with the metadata: refuse to mix two fits
    WHERE (SELECT CASE WHEN max(fitted_at) = CAST({{ fitted_at | lit }} AS {{ sql.type('TIMESTAMP') }}) THEN TRUE
                       ELSE {{ sql.raise_error("'the model was refitted after this scoring relation was made: score again'") }} END
           FROM {{ t.meta }})
    GROUP BY model, feature
), sums AS (
    SELECT
        w.doc,
{% for c in classes %}
        sum({{ value({'column': 'w.x'}, binarize) }} * k.{{ c.coef }}) AS {{ c.sum }}{{ "," if not loop.last }}
{% endfor %}
    FROM weighted AS w
    JOIN coefficients AS k ON k.model = w.model AND k.term = w.term
    GROUP BY w.doc
), constants AS (
    -- per model, each class's constant; a class the group never saw has probability 0
{{ gm.constants(classes, groups) }}
), joint AS (
    SELECT
{% if keep is none %}
        d.*,
{% else %}
{% for column in keep %}
        d.{{ column }},
{% endfor %}
{% endif %}
{% for c in classes %}
        k.__sqlnb_k{{ loop.index0 }} + coalesce(s.{{ c.sum }}, 0) AS {{ c.jll }},
{% endfor %}
        d.__sqlnb_doc AS __sqlnb_order
    FROM documents AS d
    JOIN routes AS r ON r.doc = d.__sqlnb_doc
    JOIN constants AS k ON k.model = r.model
    LEFT JOIN sums AS s ON s.doc = d.__sqlnb_doc
{{ outputs(classes, ['*'] if keep is none else keep, output, prediction) }}
ORDER BY __sqlnb_order
