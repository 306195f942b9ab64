{#- The cross-validation of a text model: each fold's model is fitted on the documents
    outside the fold, with a vocabulary of its own (CountVectorizer is refitted on every
    training set), built from the statistics of one scan of the documents. `t` is the
    scratch model's tables, keyed by the fold (`t.groups[0]`). -#}
{% import 'text/analyzer.sql' as analyzer %}
{% from 'families/counts.sql' import value %}

{# One scan: per fold and class the documents and their weight (term NULL), and per fold,
   class and term the documents that contain the term, its occurrences and the family's
   statistic (the weighted sum of the term's values). #}
{% macro statistics(t, source, target, weight, column, a, binarize) -%}
{% set fold = t.groups[0].column %}
{{ sql.temp_table(t.terms) }}
WITH documents AS {{ sql.materialized() }}(
    SELECT
        {{ fold }},
        class,
        weight,
        {{ sql.histogram(analyzer.terms('tokens', a)) }} AS histogram
    FROM (
        SELECT
            {{ fold }},
            {{ target }} AS class,
            {% if weight %}CAST({{ weight }} AS DOUBLE){% else %}1.0{% endif %} AS weight,
            {{ analyzer.tokens(column, a) }} AS tokens
        FROM {{ source }}
        WHERE {{ target }} IS NOT NULL
    )
)
SELECT
    {{ fold }},
    class,
    CAST(NULL AS {{ sql.type('VARCHAR') }}) AS term,
    count(*) AS docs,
    CAST(count(*) AS DOUBLE) AS count,
    sum(weight) AS value
FROM documents
GROUP BY ALL
UNION ALL
SELECT
    {{ fold }},
    class,
    cell.key AS term,
    count(*) AS docs,
    CAST(sum(cell.value) AS DOUBLE) AS count,
    sum(weight * {{ value({'column': analyzer.tf('cell.value', a)}, binarize) }}) AS value
FROM (
    SELECT {{ fold }}, class, weight, {{ sql.unnest('histogram') }} AS cell
    FROM documents
)
GROUP BY ALL;
{%- endmacro %}

{# Per fold, each class's documents and weight outside the fold (classes with none left
   out: that fold's model does not know them). Rows without a fold only ever train. #}
{% macro training_classes(t) -%}
{% set fold = t.groups[0].column %}
CREATE TABLE {{ t.class_stats }} AS
WITH pooled AS (
    SELECT class, sum(docs) AS n, sum(value) AS weight
    FROM {{ t.terms }}
    WHERE term IS NULL
    GROUP BY class
), held AS (
    SELECT {{ fold }}, class, docs AS n, value AS weight
    FROM {{ t.terms }}
    WHERE term IS NULL AND {{ fold }} IS NOT NULL
)
SELECT k.{{ fold }}, p.class, p.n - coalesce(h.n, 0) AS n, p.weight - coalesce(h.weight, 0) AS weight
FROM pooled AS p
CROSS JOIN (SELECT DISTINCT {{ fold }} FROM held) AS k
LEFT JOIN held AS h ON h.{{ fold }} = k.{{ fold }} AND h.class = p.class
WHERE p.n - coalesce(h.n, 0) > 0;
{%- endmacro %}

{# Per fold, the documents it trains on (for min_df and max_df given as proportions). #}
{% macro training_documents(t) -%}
{% set fold = t.groups[0].column %}
SELECT {{ fold }}, sum(n) FROM {{ t.class_stats }} GROUP BY ALL ORDER BY 1
{%- endmacro %}

{# Per fold, its vocabulary as CountVectorizer builds it from the training documents: the
   terms they contain whose document frequency is within the fold's [low, high], then the
   max_features most frequent (ties: alphabetical). (An earlier pruning's tables go first.) #}
{% macro vocabulary(t, bounds, max_features, a) -%}
{% set fold = t.groups[0].column %}
DROP TABLE IF EXISTS {{ t.vocabulary }};
DROP TABLE IF EXISTS {{ t.feature_stats }};
DROP TABLE IF EXISTS {{ t.features }};
CREATE TABLE {{ t.vocabulary }} AS
WITH pooled AS (
    SELECT term, sum(docs) AS df, sum(count) AS count
    FROM {{ t.terms }}
    WHERE term IS NOT NULL
    GROUP BY term
), held AS (
    SELECT {{ fold }}, term, sum(docs) AS df, sum(count) AS count
    FROM {{ t.terms }}
    WHERE term IS NOT NULL AND {{ fold }} IS NOT NULL
    GROUP BY ALL
), bounds AS (
    SELECT * FROM (VALUES
{% for b in bounds %}
        ({{ b.fold }}, {{ b.low | lit }}, {{ b.high | lit }}){{ "," if not loop.last }}
{% endfor %}
    ) AS b ({{ fold }}, low, high)
), training AS (
    SELECT k.{{ fold }}, p.term, p.df - coalesce(h.df, 0) AS df, p.count - coalesce(h.count, 0) AS count
    FROM pooled AS p
    CROSS JOIN bounds AS k
    LEFT JOIN held AS h ON h.{{ fold }} = k.{{ fold }} AND h.term = p.term
), kept AS (
    SELECT v.{{ fold }}, v.term, v.df, v.count
    FROM training AS v
    JOIN bounds AS b ON b.{{ fold }} = v.{{ fold }}
    WHERE v.df > 0 AND v.df >= b.low AND v.df <= b.high
)
{% if max_features is none %}
SELECT {{ fold }}, term
FROM kept;
{% else %}
SELECT {{ fold }}, term
FROM (
    SELECT {{ fold }}, term, row_number() OVER (PARTITION BY {{ fold }} ORDER BY {% if a.binary %}df{% else %}count{% endif %} DESC, term) AS __sqlnb_rank
    FROM kept
)
WHERE __sqlnb_rank <= {{ max_features | lit }};
{% endif %}
{%- endmacro %}

{# Folds whose training documents leave no term. #}
{% macro empty_vocabularies(t) -%}
{% set fold = t.groups[0].column %}
SELECT {{ fold }} FROM {{ t.class_stats }}
EXCEPT
SELECT {{ fold }} FROM {{ t.vocabulary }}
{%- endmacro %}

{# Per fold, class and vocabulary term, the statistics of the documents outside the fold
   (zero where the class never used the term): the per-group shape of a term model. #}
{% macro training_terms(t) -%}
{% set fold = t.groups[0].column %}
CREATE TABLE {{ t.feature_stats }} AS
WITH pooled AS (
    SELECT class, term, sum(docs) AS n, sum(value) AS value
    FROM {{ t.terms }}
    WHERE term IS NOT NULL
    GROUP BY class, term
), held AS (
    SELECT {{ fold }}, class, term, docs AS n, value
    FROM {{ t.terms }}
    WHERE term IS NOT NULL AND {{ fold }} IS NOT NULL
)
SELECT
    c.{{ fold }},
    c.class,
    v.term AS feature,
    coalesce(p.n, 0) - coalesce(h.n, 0) AS n,
    coalesce(p.value, 0) - coalesce(h.value, 0) AS count,
    CAST(NULL AS DOUBLE) AS weight
FROM {{ t.class_stats }} AS c
JOIN {{ t.vocabulary }} AS v ON v.{{ fold }} = c.{{ fold }}
LEFT JOIN pooled AS p ON p.class = c.class AND p.term = v.term
LEFT JOIN held AS h ON h.{{ fold }} = c.{{ fold }} AND h.class = c.class AND h.term = v.term;

CREATE TABLE {{ t.features }} AS
SELECT DISTINCT term AS feature, CAST(NULL AS DOUBLE) AS alpha
FROM {{ t.vocabulary }};
{%- endmacro %}

{# Every candidate's coefficients and constants per fold and class, for the scoring scan. #}
{% macro scores_tables(t, coefficients, constants, fold_type, class_type) -%}
{% set fold = t.groups[0].column %}
{{ sql.temp_table(coefficients) }}
SELECT
    CAST(NULL AS {{ sql.type('INTEGER') }}) AS candidate,
    CAST(NULL AS {{ fold_type }}) AS {{ fold }},
    CAST(NULL AS {{ class_type }}) AS class,
    CAST(NULL AS {{ sql.type('VARCHAR') }}) AS term,
    CAST(NULL AS DOUBLE) AS coef
WHERE 1 = 0;

{{ sql.temp_table(constants) }}
SELECT
    CAST(NULL AS {{ sql.type('INTEGER') }}) AS candidate,
    CAST(NULL AS {{ fold_type }}) AS {{ fold }},
    CAST(NULL AS {{ class_type }}) AS class,
    CAST(NULL AS DOUBLE) AS constant
WHERE 1 = 0;
{%- endmacro %}

{# Every candidate's per-fold parameters, one after the other: the family's parameter
   views over the held-out statistics, kept as (fold, class, term) coefficients and
   (fold, class) constants. #}
{% macro candidates(t, candidates, coefficients, constants, family_template, model) -%}
{% set fold = t.groups[0].column %}
{% import family_template as family %}
{% for c in candidates %}
DROP TABLE IF EXISTS {{ t.features }};
CREATE TABLE {{ t.features }} AS
SELECT DISTINCT term AS feature, CAST({{ c.alpha | lit }} AS DOUBLE) AS alpha
FROM {{ t.vocabulary }};
{% with p = c.p, priors = c.priors, fit_prior = c.fit_prior %}
{% include 'score/params.sql' %}
{% endwith %}
INSERT INTO {{ coefficients }}
SELECT {{ c.index | lit }}, c.{{ fold }}, c.class, r.feature, r.coef
FROM ({{ family.read_params(t) }}) AS r
JOIN {{ t.class_params }} AS c USING (class_index);

INSERT INTO {{ constants }}
SELECT {{ c.index | lit }}, c.{{ fold }}, c.class, k.constant
FROM ({{ family.class_constant(t) }}) AS k
JOIN {{ t.class_params }} AS c USING (class_index);
{% endfor %}
{%- endmacro %}

{# the classes of every labelled document, in sorted order #}
{% macro labels(t) -%}
{% set fold = t.groups[0].column %}
SELECT DISTINCT class FROM {{ t.terms }} ORDER BY 1
{%- endmacro %}

{# the folds that have labelled documents, in order #}
{% macro folds(t) -%}
{% set fold = t.groups[0].column %}
SELECT DISTINCT {{ fold }} FROM {{ t.class_stats }} ORDER BY 1
{%- endmacro %}
