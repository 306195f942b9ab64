-- The rows of {{ source | comment }} with their cross-validation fold: the user's fold
-- column, or a hash of the row's target, weight and features modulo the number of folds
-- (deterministic: the same row always lands in the same fold). A subquery to select FROM,
-- so that DuckDB sees through it (column and LIMIT pushdown into the source's scan).
{# `route` (a per-group text model's search): also the number of the row's group, from 1
   in the order of the group values (NULL where a group column is NULL), the same in every
   scan of the source. #}
{% set route = route | default(none) %}
(SELECT
    *,
{% if route %}
    CASE WHEN {% for g in route.columns %}{{ g }} IS NULL{{ " OR " if not loop.last }}{% endfor %} THEN NULL
         ELSE CAST(dense_rank() OVER (PARTITION BY {% for g in route.columns %}{{ g }} IS NULL{{ " OR " if not loop.last }}{% endfor %} ORDER BY {{ route.columns | join(", ") }}) AS {{ sql.type('INTEGER') }}) END AS {{ route.name }},
{% endif %}
{% if fold_column %}
    {{ fold_column }} AS __sqlnb_fold
{% else %}
    CAST(hash({% for column in hashed %}{{ column }}{{ ", " if not loop.last }}{% endfor %}) % {{ n_folds | lit }} AS INTEGER) AS __sqlnb_fold
{% endif %}
FROM {{ source }})
