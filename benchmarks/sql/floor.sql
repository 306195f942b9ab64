-- The floor: the least work a fit could do, one pass summing every feature column.
SELECT
{% for column in columns %}
    sum({{ column | ident }}){{ "," if not loop.last }}
{% endfor %}
FROM read_parquet({{ path | lit }});
