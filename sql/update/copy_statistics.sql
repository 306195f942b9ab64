-- Copy statistics rows into model {{ model | comment }} in their recorded order, so that sums
-- over the copy add up in the same order (and to the same last bit) as in the original.
{% for role, source in sources.items() %}
INSERT INTO {{ t[role] }}
SELECT {{ sql.all_except([position]) }}
FROM {{ source }}
ORDER BY {{ position }};
{% endfor %}
