-- A batch of text in the shape of a sparse batch (see fit/batch_sparse.sql): class totals
-- with feature NULL, then per class and vocabulary term the documents that contain it
-- and the weighted sum of its values. Terms outside the vocabulary are ignored.
{% import 'text/analyzer.sql' as analyzer %}
{% from 'families/counts.sql' import value %}
{{ sql.temp_table(t.batch) }}
SELECT
    {{ target }} AS class,
    CAST(NULL AS {{ sql.type('VARCHAR') }}) AS feature,
    count(*) AS n,
    {% if weight %}sum(CAST({{ weight }} AS DOUBLE)){% else %}CAST(count(*) AS DOUBLE){% endif %} AS weight,
    CAST(NULL AS DOUBLE) AS min_value
FROM {{ source }}
WHERE {{ target }} IS NOT NULL
GROUP BY {{ target }}
UNION ALL
{% if from_terms %}
-- weights are a function of the count alone: the first pass has the statistics
-- (n counts occurrences when the fast path did not count documents)
SELECT s.class, s.term AS feature, coalesce(s.docs, CAST(s.count AS BIGINT)) AS n, s.value AS weight, 0.0 AS min_value
FROM {{ t.terms }} AS s
JOIN {{ t.vocabulary }} AS v USING (term)
{% else %}
-- tf-idf: each document's weights need the vocabulary's idf and the document's norm
SELECT class, term AS feature, count(*) AS n, sum(weight * {{ value({'column': 'x'}, binarize) }}) AS weight, min(x) AS min_value
FROM (
    SELECT
        d.class,
        d.weight,
        v.term,
        {{ analyzer.normalised(analyzer.tf('d.cell.value', a) ~ ' * v.idf', 'd.doc', a) }} AS x
    FROM (
        SELECT doc, class, weight, {{ sql.unnest(sql.histogram(analyzer.terms('tokens', a))) }} AS cell
        FROM (
            SELECT
                {{ sql.row_id() }} AS doc,
                {{ target }} AS class,
                {% if weight %}CAST({{ weight }} AS DOUBLE){% else %}1.0{% endif %} AS weight,
                {{ analyzer.tokens(column, a) }} AS tokens
            FROM {{ source }}
            WHERE {{ target }} IS NOT NULL
        )
    ) AS d
    JOIN {{ t.vocabulary }} AS v ON v.term = d.cell.key
)
GROUP BY class, term
{% endif %};
