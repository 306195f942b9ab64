-- Explain documents with term model {{ model | comment }} ({{ family_name | comment }} naive Bayes):
-- one row per document, class and known term, with the term's part of the class's joint
-- log-likelihood, the same product of the vectorizer's value and the coefficient that
-- text/score_terms.sql sums per document.
{# The terms absent from a document add nothing but what the class constant already holds
   (Bernoulli: log(1 - p) of every term of the vocabulary, the present terms' coefficients
   taking theirs back), so `log_prior` is the class constant and a document without a
   known term has no rows. `row`: the one document explained (None: all). #}
{% import 'text/analyzer.sql' as analyzer %}
{% import family_template as family %}
{% from 'families/counts.sql' import value %}
WITH documents AS (
    SELECT {{ column }}, row_number() OVER () - 1 AS __sqlnb_doc
    FROM {{ source }}
{% if row is not none %}
), chosen AS (
    SELECT * FROM documents WHERE __sqlnb_doc = {{ row | lit }}
{% endif %}
), cells AS (
    -- one row per document and distinct term, with the term's count in the document
    SELECT __sqlnb_doc AS doc, cell.key AS term, cell.value AS count
    FROM (
        SELECT __sqlnb_doc, unnest(map_entries(list_aggr({{ analyzer.terms('tokens', a) }}, 'histogram'))) AS cell
        FROM (
            SELECT __sqlnb_doc, {{ analyzer.tokens(column, a) }} AS tokens
            FROM {{ 'documents' if row is none else 'chosen' }}
        )
    )
), weighted AS (
    -- the vectorizer's output for the terms the model knows; the others are ignored
    SELECT
        c.doc,
        c.term,
        {{ analyzer.normalised(analyzer.tf('c.count', a) ~ ' * v.idf', 'c.doc', a) }} AS x
    FROM cells AS c
    JOIN {{ t.vocabulary }} AS v USING (term)
), coefficients AS (
    {{ family.read_params(t) | trim }}
)
SELECT
    w.doc AS row_number,
    CASE k.class_index{% for c in classes %} WHEN {{ c.index | lit }} THEN {{ c.label }}{% endfor %} END AS class,
    w.term AS feature,
    {{ value({'column': 'w.x'}, binarize) }} * k.coef AS log_likelihood,
    CASE k.class_index{% for c in classes %} WHEN {{ c.index | lit }} THEN {{ c.constant | lit }}{% endfor %} END AS log_prior
FROM weighted AS w
JOIN coefficients AS k ON k.feature = w.term
