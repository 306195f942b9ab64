-- Categorical features whose source column has another type than at fit: per feature, the
-- values that do not survive a round trip through the model's type (1.5 for an integer
-- category, 2 for a BOOLEAN one), and the smallest of them. NaN is a missing value.
SELECT
{% for f in features %}
    {% set inexact %}{{ f.column }} IS NOT NULL AND ({{ sql.is_number('CAST(' ~ f.column ~ ' AS DOUBLE)') }}) AND coalesce(CAST(TRY_CAST({{ f.column }} AS {{ f.model_type }}) AS {{ f.source_type }}) <> {{ f.column }}, TRUE){% endset %}
    count(*) FILTER (WHERE {{ inexact }}),
    CAST(min({{ f.column }}) FILTER (WHERE {{ inexact }}) AS {{ sql.type('VARCHAR') }}){{ "," if not loop.last }}
{% endfor %}
FROM {{ source }}
