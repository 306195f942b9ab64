-- The floor of a dense fit: one GROUP BY computing each class's count, and each feature's
-- sum and sum of squares, over the Parquet file.
SELECT
    {{ target | ident }},
    count(*),
{% for c in columns %}
    sum({{ c | ident }}), sum({{ c | ident }} * {{ c | ident }}){{ "," if not loop.last }}
{% endfor %}
FROM read_parquet({{ path | lit }})
GROUP BY {{ target | ident }};
