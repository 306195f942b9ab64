-- One look at a batch table just written (instead of one query each): its features whose
-- raw sums are not finite (kind 'nan': NaN in the column, the batch is run again with NaN
-- treated as missing), its number of rows and the labelled rows they count ('size', to be
-- added up), the features whose Gaussian sums cancelled around their shift
-- ('cancelling': rescanned) and the problems that stop it from touching the model
-- ('problem'). Each part is the query of its own template.
{% if checks %}
SELECT 'nan' AS kind, feature, CAST(NULL AS {{ sql.type('VARCHAR') }}) AS problem
FROM (
{% include 'fit/batch_nan.sql' %}

) AS nan_features
UNION ALL
{% endif %}
{#- the size: a batch of a row per class gives its rows one by one (a row per class,
    with no aggregate over them: on Spark, no shuffle and no job of its own), a long batch
    its count; the caller adds them up #}
{% if family_long_batch %}
SELECT 'size', CAST(count(*) AS {{ sql.type('VARCHAR') }}), CAST(sum(n) AS {{ sql.type('VARCHAR') }}) FROM {{ t.batch }}
{% else %}
SELECT 'size', '1', CAST(n AS {{ sql.type('VARCHAR') }}) FROM {{ t.batch }}
{% if t.get('long_sums') %}
WHERE feature IS NULL
{% endif %}
{% endif %}
{% if t.get('long_sums') and features | rejectattr('origin', 'defined') | list %}
UNION ALL
{# the origins a long batch chose for features that had none (families/gaussian.sql's
    long_sums), once per class: a double's text reads back as the same double #}
{% set own = features | rejectattr('origin', 'defined') | list %}
SELECT 'origin', feature, CAST(origin AS {{ sql.type('VARCHAR') }})
FROM {{ t.batch }}
{% if own | length == features | length %}
WHERE feature IS NOT NULL
{% else %}
WHERE feature IN ({{ own | map(attribute='name') | map('lit') | join(', ') }})
{% endif %}
{% endif %}
{% if shifted %}
UNION ALL
SELECT 'cancelling', feature, NULL
FROM (
{% include 'fit/batch_cancelling.sql' %}

) AS cancelling_features
{% endif %}
{#- the problems' part only where it can find one (fit/batch_checks.sql: missing values under
    missing = 'error', or the family's own checks): DuckDB plans this at every update #}
{% if (p.missing | default('error')) == 'error' or family_has_batch_checks %}
UNION ALL
SELECT 'problem', feature, problem
FROM (
{% include 'fit/batch_checks.sql' %}

) AS problems
{% endif %}
