-- Explain documents with term model {{ model | comment }} ({{ family_name | comment }} naive Bayes):
-- one row per document, class and known term, with the term's part of the class's joint
-- log-likelihood, the same product of the vectorizer's value and the coefficient that
-- text/score_terms.sql sums per document (a per-group text model's: each document by the
-- model text/score_group_terms.sql scores it with).
{# The terms absent from a document add nothing but what the class constant already holds
   (Bernoulli: log(1 - p) of every term of the vocabulary, the present terms' coefficients
   taking theirs back), so `log_prior` is the class constant and a document without a
   known term has no rows. `row`: the one document explained (None: all). `top`: per
   document, the `top` known terms that most favour the predicted class over the runner-up
   (None: every document x class x known term). `groups` (a per-group text model's, from
   text.read_group_models) and `group_columns`: route each document to its group's model
   (vocabulary, coefficients renumbered by the pooled model's classes, constants), model 0
   (the pooled one) for a group no fit saw or a NULL group column. `inlined` (to_sql's and
   the <name>_explain macro's): the vocabulary as the JSON literal of
   score/standalone_score.sql (each term's idf and coefficient per class), so the statement
   reads no sqlnb table (a per-group text model's: every model's vocabulary, each term with
   its model's number); `coef_columns`: the name of each class's coefficient column. #}
{% import 'text/analyzer.sql' as analyzer %}
{% import family_template as family %}
{% import 'text/group_models.sql' as gm %}
{% from 'families/counts.sql' import value %}
{% set grouped = groups is defined and groups %}
{% set inlined = inlined | default(none) %}
{% set models = [{'index': 0, 't': t, 'class_map': none}] + (groups if grouped else []) %}
WITH documents AS (
    SELECT {{ column }}{% if grouped %}{% for c in group_columns %}, {{ c }}{% endfor %}{% endif %}, {{ sql.row_index() }} AS __sqlnb_doc
    FROM {{ source }}
{% if row is not none %}
), chosen AS (
    SELECT * FROM documents WHERE __sqlnb_doc = {{ row | lit }}
{% endif %}
{% if grouped %}
), routes AS (
    -- as predict routes it (text/score_group_terms.sql)
{{ gm.routes('documents' if row is none else 'chosen', groups, group_columns) }}
), constants AS (
    -- per model, the constant of each class it saw (a class a group never saw has no
    -- terms there: its joint log-likelihood is -inf)
    SELECT *
    FROM (VALUES
{% for c in classes %}
        (0, {{ c.index | lit }}, CAST({{ c.constant | lit }} AS DOUBLE)),
{% endfor %}
{% for m in groups %}
{% set outer = loop %}
{% for index, constant in m.constants | dictsort %}
        ({{ m.index | lit }}, {{ index | lit }}, CAST({{ constant | lit }} AS DOUBLE)){{ "," if not (outer.last and loop.last) }}
{% endfor %}
{% endfor %}
    ) AS k(model, class_index, constant)
{% endif %}
{% if inlined %}
), inlined_terms AS (
    -- the vocabulary: each term's idf and its coefficient in each class, inlined
    {{ sql.inlined_terms(inlined, coef_columns, grouped) | trim }}
{% endif %}
{% if grouped %}
), vocabularies AS (
{% if inlined %}
    SELECT model, term, idf FROM inlined_terms
{% else %}
{{ gm.vocabularies(models) }}
{% endif %}
{% endif %}
), cells AS (
    -- one row per document and distinct term, with the term's count in the document
    {{ analyzer.document_terms('documents' if row is none else 'chosen', '__sqlnb_doc', column, a) }}
), weighted AS (
    -- the vectorizer's output for the terms the model knows; the others are ignored
    SELECT
        c.doc,
{% if grouped %}
        r.model,
{% endif %}
        c.term,
        {{ analyzer.normalised(analyzer.tf('c.count', a) ~ ' * v.idf', 'c.doc', a) }} AS x
    FROM cells AS c
{% if grouped %}
    JOIN routes AS r ON r.doc = c.doc
    JOIN vocabularies AS v ON v.model = r.model AND v.term = c.term
{% else %}
    JOIN {{ 'inlined_terms' if inlined else t.vocabulary }} AS v USING (term)
{% endif %}
), coefficients AS (
{% if grouped and inlined %}
{{ gm.inlined_coefficients('inlined_terms', classes, coef_columns) }}
{% elif grouped %}
{{ gm.coefficients(models, family) }}
{% elif inlined %}
{% for c in classes %}
    SELECT term AS feature, {{ c.index | lit }} AS class_index, {{ coef_columns[loop.index0] }} AS coef
    FROM inlined_terms
    {{ "UNION ALL" if not loop.last }}
{% endfor %}
{% else %}
    {{ family.read_params(t) | trim }}
{% endif %}
)
{% set label %}CASE {index}{% for c in classes %} WHEN {{ c.index | lit }} THEN {{ c.label }}{% endfor %} END{% endset %}
{% if grouped %}
{% set constant = 'p.constant' %}
{% set joined %}JOIN coefficients AS k ON k.model = w.model AND k.feature = w.term
JOIN constants AS p ON p.model = w.model AND p.class_index = k.class_index{% endset %}
{% else %}
{% set constant %}CASE k.class_index{% for c in classes %} WHEN {{ c.index | lit }} THEN {{ c.constant | lit }}{% endfor %} END{% endset %}
{% set joined %}JOIN coefficients AS k ON k.feature = w.term{% endset %}
{% endif %}
{% if not top %}
SELECT
    w.doc AS row_number,
    {{ label | replace('{index}', 'k.class_index') }} AS class,
    w.term AS feature,
    {{ value({'column': 'w.x'}, binarize) }} * k.coef AS log_likelihood,
    {{ constant }} AS log_prior
FROM weighted AS w
{{ joined }}
{% else %}
, terms AS (
    SELECT
        w.doc,
        k.class_index,
        w.term,
        w.x,
        {{ value({'column': 'w.x'}, binarize) }} * k.coef AS term_value,
        {{ constant }} AS log_prior
    FROM weighted AS w
    {{ joined }}
), joint AS (
    -- a document's joint log-likelihood per class: the constant and its known terms
    SELECT doc, class_index, max(log_prior) + sum(term_value) AS jll
    FROM terms
    GROUP BY doc, class_index
), placed AS (
    -- the predicted class and the runner-up (ties to the first class in sorted order)
    SELECT
        doc,
        max(CASE WHEN place = 1 THEN class_index END) AS first,
        max(CASE WHEN place = 2 THEN class_index END) AS second
    FROM (
        SELECT doc, class_index, row_number() OVER (PARTITION BY doc ORDER BY jll DESC, class_index) AS place
        FROM joint
    )
    GROUP BY doc
), differences AS (
    -- each known term's part in the predicted class less its part in the runner-up
    SELECT
        t.doc,
        t.term,
        any_value(t.x) AS x,
        p.first,
        p.second,
        sum(CASE WHEN t.class_index = p.first THEN t.term_value END)
            - coalesce(sum(CASE WHEN t.class_index = p.second THEN t.term_value END), 0) AS contribution
    FROM terms AS t
    JOIN placed AS p USING (doc)
    GROUP BY t.doc, t.term, p.first, p.second
), ranked AS (
    -- the largest contributions first (ties to the first term in alphabetical order)
    SELECT *, row_number() OVER (PARTITION BY doc ORDER BY contribution DESC, term) AS rank
    FROM differences
)
SELECT
    doc AS row_number,
    rank,
    term AS feature,
    {{ sql.as_text('x') }} AS value,
    contribution,
    {{ label | replace('{index}', 'first') }} AS prediction,
    {{ label | replace('{index}', 'second') }} AS runner_up
FROM ranked
WHERE rank <= {{ top | lit }}
ORDER BY row_number, rank
{% endif %}
