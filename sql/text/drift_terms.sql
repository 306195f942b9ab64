-- Drift of the documents of {{ source | comment }} from text model {{ model | comment }}:
-- one scan of the source, the shares of its tokens per term against the fit's.
{# The bins are the model's vocabulary (its `count`: the term's tokens in the fitted
   documents) plus one (category NULL) for the batch's tokens the vocabulary lacks; the PSI
   is sum (b - m) ln(b / m) over them, each share at least `epsilon` in the logarithm, as
   reports/drift.sql's categorical features. One row: the text column. #}
{% import 'text/analyzer.sql' as analyzer %}
WITH cells AS (
    -- one row per document and distinct term, with the term's count in the document
    SELECT cell.key AS term, cell.value AS n
    FROM (
        SELECT {{ sql.unnest(sql.histogram(analyzer.terms('tokens', a))) }} AS cell
        FROM (
            SELECT {{ analyzer.tokens(column, a) }} AS tokens
            FROM {{ source }}
        )
    )
), batch AS (
    SELECT term, sum(n) AS n FROM cells GROUP BY term
), bins AS (
    SELECT
        v.term AS category,
        coalesce(sum(b.n), 0) AS batch_n,
        coalesce(sum(v.count), 0) AS model_n
    FROM batch AS b
    FULL OUTER JOIN {{ t.vocabulary }} AS v USING (term)
    GROUP BY v.term
), shares AS (
    SELECT
        *,
        batch_n / nullif(sum(batch_n) OVER (), 0) AS batch_share,
        model_n / nullif(sum(model_n) OVER (), 0) AS model_share
    FROM bins
)
SELECT
    {{ name | lit }} AS feature,
    CAST(NULL AS {{ sql.type(target_type) }}) AS class,
    'psi' AS method,
    sum((batch_share - model_share)
        * ln(greatest(batch_share, {{ epsilon | lit }}) / greatest(model_share, {{ epsilon | lit }}))) AS drift,
    sum((batch_share - model_share)
        * ln(greatest(batch_share, {{ epsilon | lit }}) / greatest(model_share, {{ epsilon | lit }}))) AS psi,
    CAST(sum(batch_n) AS BIGINT) AS batch_count,
    CAST(NULL AS DOUBLE) AS batch_mean,
    CAST(NULL AS DOUBLE) AS batch_spread,
    CAST(sum(model_n) AS BIGINT) AS model_count,
    CAST(NULL AS DOUBLE) AS model_mean,
    CAST(NULL AS DOUBLE) AS model_spread,
    {{ sql.top_shares('category', 'batch_share', top_categories) }} AS batch_top,
    {{ sql.top_shares('category', 'model_share', top_categories) }} AS model_top
FROM shares
