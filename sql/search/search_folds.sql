-- The rows of {{ source | comment }} with their cross-validation fold: the user's fold
-- column, or a hash of the row's target, weight and features modulo the number of folds
-- (deterministic: the same row always lands in the same fold). A subquery to select FROM,
-- so that DuckDB sees through it (column and LIMIT pushdown into the source's scan).
(SELECT
    *,
{% if fold_column %}
    {{ fold_column }} AS __sqlnb_fold
{% else %}
    CAST(hash({% for column in hashed %}{{ column }}{{ ", " if not loop.last }}{% endfor %}) % {{ n_folds | lit }} AS INTEGER) AS __sqlnb_fold
{% endif %}
FROM {{ source }})
