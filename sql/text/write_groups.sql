-- The groups of per-group text model {{ model | comment }}: each group's values and the
-- index i of its text model (<name>_text_group_<i>).
{# `replace`: the table takes the place of the earlier one (else `table` is a new version
   of it, see SparkEngine.versioned_together). #}
CREATE {{ "OR REPLACE " if replace }}TABLE {{ table }} AS
SELECT *
FROM (VALUES
{% for row in rows %}
    ({% for v in row %}{{ v }}{{ ", " if not loop.last }}{% endfor %}){{ "," if not loop.last }}
{% endfor %}
) AS g(group_index{% for g in groups %}, {{ g.column }}{% endfor %});
