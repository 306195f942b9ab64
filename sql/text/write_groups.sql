-- The groups of per-group text model {{ model | comment }}: each group's values and the
-- index i of its text model (<name>_text_group_<i>).
-- (The earlier relation of this name is released first: see sqlnb/ownership.py.)
CREATE OR REPLACE TABLE {{ table }} AS
SELECT *
FROM (VALUES
{% for row in rows %}
    ({% for v in row %}{{ v }}{{ ", " if not loop.last }}{% endfor %}){{ "," if not loop.last }}
{% endfor %}
) AS g(group_index{% for g in groups %}, {{ g.column }}{% endfor %});
