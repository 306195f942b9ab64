-- One pass over the documents: per class and term, the documents that contain the term,
-- its number of occurrences and the family's statistic of the term's count (used when
-- weights need neither idf nor a per-document norm).
{% import 'text/analyzer.sql' as analyzer %}
{% from 'families/counts.sql' import value %}
{{ sql.temp_table(t.terms) }}
{% if chunks %}
-- Fast path: the regular expression runs once per distinct chunk, not per document. The
-- statistic is linear in the counts, so occurrences are simply added up; documents are
-- not counted (docs is NULL).
{% if labels %}
-- With few classes, one aggregate per chunk with a column per class is cheaper than a
-- group per class and chunk.
WITH wide AS (
    SELECT
        chunk,
{% for c in labels %}
        count(*) FILTER (WHERE class = {{ c }}) AS count_{{ loop.index0 }}{% if weight %},
        sum(weight) FILTER (WHERE class = {{ c }}) AS value_{{ loop.index0 }}{% endif %}{{ "," if not loop.last }}
{% endfor %}
    FROM (
        SELECT
            {{ target }} AS class,
            {% if weight %}CAST({{ weight }} AS DOUBLE){% else %}1.0{% endif %} AS weight,
            {{ sql.unnest(analyzer.chunks(column, a)) }} AS chunk
        FROM {{ source }}
        WHERE {{ target }} IS NOT NULL
    )
    GROUP BY chunk
), chunks AS (
    SELECT chunk, class, count, value
    FROM (
        SELECT
            chunk,
{% set counts, values = [], [] %}
{% for c in labels %}
{% set _ = counts.append('count_' ~ loop.index0) %}
{% set _ = values.append(('value_' ~ loop.index0) if weight else ('CAST(count_' ~ loop.index0 ~ ' AS DOUBLE)')) %}
{% endfor %}
            {{ sql.unpivot([('class', labels), ('count', counts), ('value', values)]) }}
        FROM wide
    )
    WHERE count > 0
{% else %}
WITH chunks AS (
    -- unweighted, the value is the count: one aggregate fewer over every occurrence.
    -- The documents come sorted by class: a class's (class, chunk) groups are then all
    -- updated close together, which keeps the hash table's working set in cache (with
    -- many classes, 20% less CPU here, sort included).
    SELECT class, chunk, count(*) AS count, {% if weight %}sum(weight){% else %}CAST(count(*) AS DOUBLE){% endif %} AS value
    FROM (
        SELECT
            class,
            weight,
            {{ sql.unnest(analyzer.chunks('__sqlnb_text', a)) }} AS chunk
        FROM (
            SELECT
                {{ target }} AS class,
                {% if weight %}CAST({{ weight }} AS DOUBLE){% else %}1.0{% endif %} AS weight,
                {{ column }} AS __sqlnb_text
            FROM {{ source }}
            WHERE {{ target }} IS NOT NULL
            ORDER BY class
        )
    )
    GROUP BY class, chunk
{% endif %}
), chunk_terms AS (
    SELECT chunk, {{ sql.unnest(analyzer.chunk_tokens('chunk', a)) }} AS term
    FROM (SELECT DISTINCT chunk FROM chunks)
)
SELECT
    c.class,
    t.term,
    CAST(NULL AS BIGINT) AS docs,
    sum(c.count) AS count,
    sum(c.value) AS value
FROM chunks AS c
JOIN chunk_terms AS t USING (chunk)
GROUP BY c.class, t.term;
{% else %}
WITH tokenised AS (
    SELECT
        {{ target }} AS class,
        {% if weight %}CAST({{ weight }} AS DOUBLE){% else %}1.0{% endif %} AS weight,
        {{ analyzer.tokens(column, a) }} AS tokens
    FROM {{ source }}
    WHERE {{ target }} IS NOT NULL
), cells AS (
    -- one row per document and distinct term, with the term's count in the document
    SELECT class, weight, {{ sql.unnest(sql.histogram(analyzer.terms('tokens', a))) }} AS cell
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
{% endif %}
