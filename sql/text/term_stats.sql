-- One pass over the documents: per class and term, the documents that contain the term,
-- its number of occurrences and the family's statistic of the term's count (used when
-- weights need neither idf nor a per-document norm).
{% import 'text/analyzer.sql' as analyzer %}
{% from 'families/counts.sql' import value %}
CREATE OR REPLACE TEMP TABLE {{ t.terms }} AS
WITH tokenised AS (
    SELECT
        {{ target }} AS class,
        {% if weight %}CAST({{ weight }} AS DOUBLE){% else %}1.0{% endif %} AS weight,
        {{ analyzer.tokens(column, a) | indent(8) }} AS tokens
    FROM {{ source }}
    WHERE {{ target }} IS NOT NULL
), cells AS (
    -- one row per document and distinct term, with the term's count in the document
    SELECT class, weight, unnest(map_entries(list_aggr({{ analyzer.terms('tokens', a) | indent(8) }}, 'histogram'))) AS cell
    FROM tokenised
)
SELECT
    class,
    cell.key AS term,
    count(*) AS docs,
    sum(cell.value) AS count,
    sum(weight * {{ value({'column': analyzer.tf('cell.value', a)}, binarize) }}) AS value
FROM cells
GROUP BY class, cell.key;
