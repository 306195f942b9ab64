{#- The cross-validation of a text model: each fold's model is fitted on the documents
    outside the fold, with a vocabulary of its own (CountVectorizer is refitted on every
    training set), built from the statistics of one scan of the documents. `t` is the
    scratch model's tables, keyed by the fold (the last of `t.groups`). A per-group text
    model's search keys them by its model too, first: `route` (0 for the pooled model,
    which every document trains, else the number of the document's group, which its
    documents train), so each (model, fold) is a text model of its own; the "pooled"
    statistics a fold's are subtracted from are then its model's. -#}
{% import 'text/analyzer.sql' as analyzer %}
{% from 'families/counts.sql' import value %}

{# One scan: per fold and class the documents and their weight (term NULL), and per fold,
   class and term the documents that contain the term, its occurrences and the family's
   statistic (the weighted sum of the term's values). #}
{% macro statistics(t, source, target, weight, column, a, binarize, route=none) -%}
{% set keys = t.groups | map(attribute='column') | join(", ") %}
{{ sql.temp_table(t.terms) }}
WITH documents AS {{ sql.materialized() }}(
    SELECT
        {% if route %}{{ route }}, {% endif %}{{ t.groups[-1].column }},
        class,
        weight,
        {{ sql.histogram(analyzer.terms('tokens', a)) }} AS histogram
    FROM (
        SELECT
            {% if route %}{{ route }}, {% endif %}{{ t.groups[-1].column }},
            {{ target }} AS class,
            {% if weight %}CAST({{ weight }} AS DOUBLE){% else %}1.0{% endif %} AS weight,
            {{ analyzer.tokens(column, a) }} AS tokens
        FROM {{ source }}
        WHERE {{ target }} IS NOT NULL
    )
{% if route %}
), copies AS (
    -- each document trains the pooled model (0) and its group's model (none for a NULL group)
    SELECT CAST(0 AS {{ sql.type('INTEGER') }}) AS {{ route }}, {{ t.groups[-1].column }}, class, weight, histogram
    FROM documents
    UNION ALL
    SELECT {{ route }}, {{ t.groups[-1].column }}, class, weight, histogram
    FROM documents
    WHERE {{ route }} IS NOT NULL
{% endif %}
)
SELECT
    {{ keys }},
    class,
    CAST(NULL AS {{ sql.type('VARCHAR') }}) AS term,
    count(*) AS docs,
    CAST(count(*) AS DOUBLE) AS count,
    sum(weight) AS value
FROM {{ 'copies' if route else 'documents' }}
GROUP BY ALL
UNION ALL
SELECT
    {{ keys }},
    class,
    cell.key AS term,
    count(*) AS docs,
    CAST(sum(cell.value) AS DOUBLE) AS count,
    sum(weight * {{ value({'column': analyzer.tf('cell.value', a)}, binarize) }}) AS value
FROM (
    SELECT {{ keys }}, class, weight, {{ sql.unnest('histogram') }} AS cell
    FROM {{ 'copies' if route else 'documents' }}
)
GROUP BY ALL;
{%- endmacro %}

{# Per fold, each class's documents and weight outside the fold (classes with none left
   out: that fold's model does not know them). Rows without a fold only ever train. #}
{% macro training_classes(t) -%}
{% set fold = t.groups[-1].column %}
{% set models = t.groups[:-1] | map(attribute='column') | list %}
CREATE TABLE {{ t.class_stats }} AS
WITH pooled AS (
    SELECT {% for m in models %}{{ m }}, {% endfor %}class, sum(docs) AS n, sum(value) AS weight
    FROM {{ t.terms }}
    WHERE term IS NULL
    GROUP BY {% for m in models %}{{ m }}, {% endfor %}class
), held AS (
    SELECT {% for m in models %}{{ m }}, {% endfor %}{{ fold }}, class, docs AS n, value AS weight
    FROM {{ t.terms }}
    WHERE term IS NULL AND {{ fold }} IS NOT NULL
)
SELECT {% for m in models %}k.{{ m }}, {% endfor %}k.{{ fold }}, p.class, p.n - coalesce(h.n, 0) AS n, p.weight - coalesce(h.weight, 0) AS weight
FROM pooled AS p
{% if models %}
-- (a model's folds: those its documents are held out in)
JOIN (SELECT DISTINCT {% for m in models %}{{ m }}, {% endfor %}{{ fold }} FROM held) AS k
    ON {% for m in models %}k.{{ m }} = p.{{ m }}{{ " AND " if not loop.last }}{% endfor %}

{% else %}
CROSS JOIN (SELECT DISTINCT {{ fold }} FROM held) AS k
{% endif %}
LEFT JOIN held AS h ON {% for m in models %}h.{{ m }} = k.{{ m }} AND {% endfor %}h.{{ fold }} = k.{{ fold }} AND h.class = p.class
WHERE p.n - coalesce(h.n, 0) > 0;
{%- endmacro %}

{# Per fold, the documents it trains on (for min_df and max_df given as proportions). #}
{% macro training_documents(t) -%}
{% set keys = t.groups | map(attribute='column') | join(", ") %}
SELECT {{ keys }}, sum(n) FROM {{ t.class_stats }} GROUP BY ALL ORDER BY ALL
{%- endmacro %}

{# Per fold, its vocabulary as CountVectorizer builds it from the training documents: the
   terms they contain whose document frequency is within the fold's [low, high], then the
   max_features most frequent (ties: alphabetical). (An earlier pruning's tables go first.) #}
{% macro vocabulary(t, bounds, max_features, a) -%}
{% set fold = t.groups[-1].column %}
{% set models = t.groups[:-1] | map(attribute='column') | list %}
{% set keys = t.groups | map(attribute='column') | join(", ") %}
DROP TABLE IF EXISTS {{ t.vocabulary }};
DROP TABLE IF EXISTS {{ t.feature_stats }};
DROP TABLE IF EXISTS {{ t.features }};
CREATE TABLE {{ t.vocabulary }} AS
WITH pooled AS (
    SELECT {% for m in models %}{{ m }}, {% endfor %}term, sum(docs) AS df, sum(count) AS count
    FROM {{ t.terms }}
    WHERE term IS NOT NULL
    GROUP BY {% for m in models %}{{ m }}, {% endfor %}term
), held AS (
    SELECT {{ keys }}, term, sum(docs) AS df, sum(count) AS count
    FROM {{ t.terms }}
    WHERE term IS NOT NULL AND {{ fold }} IS NOT NULL
    GROUP BY ALL
), bounds AS (
    SELECT * FROM (VALUES
{% for b in bounds %}
        ({% for k in b["keys"] %}{{ k }}, {% endfor %}{{ b.low | lit }}, {{ b.high | lit }}){{ "," if not loop.last }}
{% endfor %}
    ) AS b ({{ keys }}, low, high)
), training AS (
    SELECT {% for m in models %}k.{{ m }}, {% endfor %}k.{{ fold }}, p.term, p.df - coalesce(h.df, 0) AS df, p.count - coalesce(h.count, 0) AS count
    FROM pooled AS p
{% if models %}
    JOIN bounds AS k ON {% for m in models %}k.{{ m }} = p.{{ m }}{{ " AND " if not loop.last }}{% endfor %}

{% else %}
    CROSS JOIN bounds AS k
{% endif %}
    LEFT JOIN held AS h ON {% for m in models %}h.{{ m }} = k.{{ m }} AND {% endfor %}h.{{ fold }} = k.{{ fold }} AND h.term = p.term
), kept AS (
    SELECT {% for m in models %}v.{{ m }}, {% endfor %}v.{{ fold }}, v.term, v.df, v.count
    FROM training AS v
    JOIN bounds AS b ON {% for m in models %}b.{{ m }} = v.{{ m }} AND {% endfor %}b.{{ fold }} = v.{{ fold }}
    WHERE v.df > 0 AND v.df >= b.low AND v.df <= b.high
)
{% if max_features is none %}
SELECT {{ keys }}, term
FROM kept;
{% else %}
SELECT {{ keys }}, term
FROM (
    SELECT {{ keys }}, term, row_number() OVER (PARTITION BY {{ keys }} ORDER BY {% if a.binary %}df{% else %}count{% endif %} DESC, term) AS __sqlnb_rank
    FROM kept
)
WHERE __sqlnb_rank <= {{ max_features | lit }};
{% endif %}
{%- endmacro %}

{# Folds whose training documents leave no term. #}
{% macro empty_vocabularies(t) -%}
{% set keys = t.groups | map(attribute='column') | join(", ") %}
SELECT {{ keys }} FROM {{ t.class_stats }}
EXCEPT
SELECT {{ keys }} FROM {{ t.vocabulary }}
{%- endmacro %}

{# Per fold, class and vocabulary term, the statistics of the documents outside the fold
   (zero where the class never used the term): the per-group shape of a term model. #}
{% macro training_terms(t) -%}
{% set fold = t.groups[-1].column %}
{% set models = t.groups[:-1] | map(attribute='column') | list %}
{% set keys = t.groups | map(attribute='column') | list %}
CREATE TABLE {{ t.feature_stats }} AS
WITH pooled AS (
    SELECT {% for m in models %}{{ m }}, {% endfor %}class, term, sum(docs) AS n, sum(value) AS value
    FROM {{ t.terms }}
    WHERE term IS NOT NULL
    GROUP BY {% for m in models %}{{ m }}, {% endfor %}class, term
), held AS (
    SELECT {% for k in keys %}{{ k }}, {% endfor %}class, term, docs AS n, value
    FROM {{ t.terms }}
    WHERE term IS NOT NULL AND {{ fold }} IS NOT NULL
)
SELECT
{% for k in keys %}
    c.{{ k }},
{% endfor %}
    c.class,
    v.term AS feature,
    coalesce(p.n, 0) - coalesce(h.n, 0) AS n,
    coalesce(p.value, 0) - coalesce(h.value, 0) AS count,
    CAST(NULL AS DOUBLE) AS weight
FROM {{ t.class_stats }} AS c
JOIN {{ t.vocabulary }} AS v ON {% for k in keys %}v.{{ k }} = c.{{ k }}{{ " AND " if not loop.last }}{% endfor %}

LEFT JOIN pooled AS p ON {% for m in models %}p.{{ m }} = c.{{ m }} AND {% endfor %}p.class = c.class AND p.term = v.term
LEFT JOIN held AS h ON {% for k in keys %}h.{{ k }} = c.{{ k }} AND {% endfor %}h.class = c.class AND h.term = v.term;

CREATE TABLE {{ t.features }} AS
SELECT DISTINCT term AS feature, CAST(NULL AS DOUBLE) AS alpha
FROM {{ t.vocabulary }};
{%- endmacro %}

{# Every candidate's coefficients and constants per fold and class, for the scoring scan. #}
{% macro scores_tables(t, coefficients, constants, fold_type, class_type) -%}
{% set fold = t.groups[-1].column %}
{% set models = t.groups[:-1] | map(attribute='column') | list %}
{{ sql.temp_table(coefficients) }}
SELECT
    CAST(NULL AS {{ sql.type('INTEGER') }}) AS candidate,
{% for m in models %}
    CAST(NULL AS {{ sql.type('INTEGER') }}) AS {{ m }},
{% endfor %}
    CAST(NULL AS {{ fold_type }}) AS {{ fold }},
    CAST(NULL AS {{ class_type }}) AS class,
    CAST(NULL AS {{ sql.type('VARCHAR') }}) AS term,
    CAST(NULL AS DOUBLE) AS coef
WHERE 1 = 0;

{{ sql.temp_table(constants) }}
SELECT
    CAST(NULL AS {{ sql.type('INTEGER') }}) AS candidate,
{% for m in models %}
    CAST(NULL AS {{ sql.type('INTEGER') }}) AS {{ m }},
{% endfor %}
    CAST(NULL AS {{ fold_type }}) AS {{ fold }},
    CAST(NULL AS {{ class_type }}) AS class,
    CAST(NULL AS DOUBLE) AS constant
WHERE 1 = 0;
{%- endmacro %}

{# Every candidate's per-fold parameters, one after the other: the family's parameter
   views over the held-out statistics, kept as (fold, class, term) coefficients and
   (fold, class) constants. #}
{% macro candidates(t, candidates, coefficients, constants, family_template, model) -%}
{% set keys = t.groups | map(attribute='column') | list %}
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
SELECT {{ c.index | lit }}, {% for k in keys %}c.{{ k }}, {% endfor %}c.class, r.feature, r.coef
FROM ({{ family.read_params(t) }}) AS r
JOIN {{ t.class_params }} AS c USING (class_index);

INSERT INTO {{ constants }}
SELECT {{ c.index | lit }}, {% for k in keys %}c.{{ k }}, {% endfor %}c.class, k.constant
FROM ({{ family.class_constant(t) }}) AS k
JOIN {{ t.class_params }} AS c USING (class_index);
{% endfor %}
{%- endmacro %}

{# the classes of every labelled document, in sorted order #}
{% macro labels(t) -%}
SELECT DISTINCT class FROM {{ t.terms }} ORDER BY 1
{%- endmacro %}

{# the folds that have labelled documents, in order #}
{% macro folds(t) -%}
{% set fold = t.groups[-1].column %}
SELECT DISTINCT {{ fold }} FROM {{ t.class_stats }}
{% if t.groups | length > 1 %}
WHERE {{ t.groups[0].column }} = 0  -- (the pooled model's: every fold)
{% endif %}
ORDER BY 1
{%- endmacro %}
