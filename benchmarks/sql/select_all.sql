-- Reading the rows and nothing else: the floor of scoring them.
{% if path is defined %}
SELECT * FROM read_parquet({{ path | lit }});
{% else %}
SELECT * FROM {{ table | ident }};
{% endif %}
