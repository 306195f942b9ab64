-- Score documents with term model {{ model | comment }} ({{ family_name | comment }} naive Bayes): the
-- documents' (term, value) cells are joined with the per-term coefficients of every class
-- and summed per document; nothing is densified. Then {{ output | comment }}, as in score/score.sql.
{% import 'text/analyzer.sql' as analyzer %}
{% import family_template as family %}
{% from 'families/counts.sql' import value %}
{% from 'score/scoring_helpers.sql' import outputs %}
WITH documents AS {{ sql.materialized() }}(
{% if input == 'text' %}
    SELECT *, {{ sql.row_id() }} AS __sqlnb_doc
    FROM {{ source }}
{% else %}
    SELECT DISTINCT {{ document }}
    FROM {{ source }}
{% endif %}
{% if chunks %}
), chunk_cells AS (
    -- fast path (see term_stats.sql): one row per occurrence of a space-separated chunk
    SELECT __sqlnb_doc AS doc, {{ sql.unnest(analyzer.chunks(column, a)) }} AS chunk
    FROM documents
{% else %}
), cells AS (
{% if input == 'text' %}
    -- one row per document and distinct term, with the term's count in the document
    {{ analyzer.document_terms('documents', '__sqlnb_doc', column, a) }}
{% else %}
    SELECT {{ document }} AS doc, CAST({{ feature }} AS {{ sql.type('VARCHAR') }}) AS term, {{ value_column }} AS count
    FROM {{ source }}
{% endif %}
), weighted AS (
    -- the vectorizer's output for the terms the model knows; the others are ignored
    SELECT
        c.doc,
        c.term,
{% if input == 'text' %}
        {{ analyzer.normalised(analyzer.tf('c.count', a) ~ ' * v.idf', 'c.doc', a) }} AS x
    FROM cells AS c
    JOIN {{ t.vocabulary }} AS v USING (term)
{% else %}
        CAST(c.count AS DOUBLE) AS x
    FROM cells AS c
{% endif %}
{% endif %}
{# The coefficients are read when the statement runs, the class constants below were read
   with the metadata: refuse to mix two fits of the model. #}
{% set same_fit %}
(SELECT CASE WHEN max(fitted_at) = CAST({{ fitted_at | lit }} AS {{ sql.type('TIMESTAMP') }}) THEN TRUE
             ELSE {{ sql.raise_error("'the model was refitted after this scoring relation was made: score again'") }} END
     FROM {{ t.meta }})
{%- endset %}
{% if chunks %}
), chunk_coefficients AS (
    -- per distinct chunk, one column per class: the summed coefficients of the known terms
    -- in it, pivoted from the (term, class) parameters in the same aggregate (CASE rather
    -- than FILTER: see term_stats.sql)
    SELECT
        t.chunk,
{% for c in classes %}
        sum(CASE WHEN k.class_index = {{ c.index | lit }} THEN k.coef END) AS {{ c.coef }}{{ "," if not loop.last }}
{% endfor %}
    FROM (
        SELECT chunk, {{ sql.unnest(analyzer.chunk_tokens('chunk', a)) }} AS term
        FROM (SELECT DISTINCT chunk FROM chunk_cells)
    ) AS t
    JOIN (
        {{ family.read_params(t) }}
    ) AS k ON k.feature = t.term
    WHERE {{ same_fit }}
    GROUP BY t.chunk
    -- Always true; there for DuckDB's planner, which builds a join's hash table on the side
    -- whose estimated rows x row width is smaller. It cannot tell that this side has far
    -- fewer rows than the cells (5,000 against 1M here): with a column per class it would
    -- build on the cells, the join would then emit them in chunk order, and the sums per
    -- document below would lose their locality (2x slower). A filter counts as selective
    -- (a fifth of the rows), which tips the choice up to ~50 classes; wider, the plan is
    -- as before.
    HAVING count(*) > 0
), sums AS (
    SELECT
        c.doc,
{% for c in classes %}
        sum(k.{{ c.coef }}) AS {{ c.sum }}{{ "," if not loop.last }}
{% endfor %}
    FROM chunk_cells AS c
    JOIN chunk_coefficients AS k USING (chunk)
    GROUP BY c.doc
{% else %}
), coefficients AS (
    -- one row per term, one coefficient column per class
    SELECT
        feature AS term,
{% for c in classes %}
        sum(CASE WHEN class_index = {{ c.index | lit }} THEN coef END) AS {{ c.coef }}{{ "," if not loop.last }}
{% endfor %}
    FROM (
        {{ family.read_params(t) }}
    )
    WHERE {{ same_fit }}
    GROUP BY feature
), sums AS (
    SELECT
        w.doc,
{% for c in classes %}
        sum({{ value({'column': 'w.x'}, binarize) }} * k.{{ c.coef }}) AS {{ c.sum }}{{ "," if not loop.last }}
{% endfor %}
    FROM weighted AS w
    JOIN coefficients AS k USING (term)
    GROUP BY w.doc
{% endif %}
), joint AS (
    SELECT
{% for column in keep %}
        d.{{ column }},
{% endfor %}
{% for c in classes %}
        {{ c.constant | lit }} + coalesce(s.{{ c.sum }}, 0) AS {{ c.jll }},
{% endfor %}
        d.{{ order }} AS __sqlnb_order
    FROM documents AS d
    LEFT JOIN sums AS s ON s.doc = d.{{ order }}
{{ outputs(classes, keep, output, prediction) }}
ORDER BY __sqlnb_order
