{#- Classification metrics from a confusion table, as scikit-learn defines them: the
    per-class metrics, the confusion matrix over every label, and the summary. -#}

{% macro _metrics(confusion) -%}
WITH labels AS (
    -- every label that is true or predicted somewhere, as in scikit-learn
    SELECT actual AS label FROM {{ confusion }}
    UNION
    SELECT predicted FROM {{ confusion }} WHERE predicted IS NOT NULL
), counts AS (
    SELECT
        l.label,
        coalesce(sum(c.n) FILTER (WHERE c.actual = l.label AND c.predicted = l.label), 0) AS true_positives,
        coalesce(sum(c.n) FILTER (WHERE c.predicted = l.label), 0) AS predicted,
        coalesce(sum(c.n) FILTER (WHERE c.actual = l.label), 0) AS support
    FROM labels AS l
    CROSS JOIN {{ confusion }} AS c
    GROUP BY l.label
), per_class AS (
    -- an undefined ratio (nothing predicted, or no true rows) counts as 0, as in scikit-learn
    SELECT
        label,
        CASE WHEN predicted = 0 THEN 0 ELSE true_positives / predicted END AS precision,
        CASE WHEN support = 0 THEN 0 ELSE true_positives / support END AS recall,
        CASE WHEN support + predicted = 0 THEN 0 ELSE 2 * true_positives / (support + predicted) END AS f1,
        CAST(support AS BIGINT) AS support
    FROM counts
)
{%- endmacro %}

{% macro classes(confusion) -%}
-- Classification metrics from a confusion table, as scikit-learn defines them: per class.
{{ _metrics(confusion) }}
SELECT label, precision, recall, f1, support
FROM per_class
ORDER BY label
{%- endmacro %}

{% macro matrix(confusion) -%}
-- The confusion matrix over every label that is true or predicted somewhere.
{{ _metrics(confusion) }}
SELECT a.label AS actual, p.label AS predicted, coalesce(c.n, 0) AS n
FROM labels AS a
CROSS JOIN labels AS p
LEFT JOIN {{ confusion }} AS c ON c.actual = a.label AND c.predicted = p.label
ORDER BY a.label, p.label
{%- endmacro %}

{% macro summary(confusion) -%}
-- Classification metrics from a confusion table, as scikit-learn defines them: the summary.
{{ _metrics(confusion) }}
SELECT
    (SELECT sum(n) FROM {{ confusion }}) AS n,
    (SELECT coalesce(sum(n) FILTER (WHERE actual = predicted), 0) / sum(n) FROM {{ confusion }}) AS accuracy,
    (SELECT avg(f1) FROM per_class) AS macro_f1,
    (SELECT sum(f1 * support) / sum(support) FROM per_class) AS weighted_f1,
    (SELECT sum(loss) / sum(n) FROM {{ confusion }}) AS log_loss
{%- endmacro %}

{% macro drop(confusion) -%}
-- The confusion table is not needed once the metrics are read.
DROP TABLE IF EXISTS {{ confusion }}
{%- endmacro %}
