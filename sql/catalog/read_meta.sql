{% if what is defined and what == 'relations' %}
-- The relations model {{ model | comment }} owns (a JSON list), as its last fit recorded them.
SELECT relations FROM {{ t.meta }}
{% elif what is defined and what == 'family' %}
-- The family of model {{ model | comment }}.
SELECT family FROM {{ t.meta }}
{% else %}
-- The metadata row of model {{ model | comment }} (every column: a schema-1 row has no spec).
SELECT * FROM {{ t.meta }}
{% endif %}
