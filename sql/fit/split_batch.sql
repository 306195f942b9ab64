-- Split the one-scan batch of a per-group fit into the pooled model's rows (the batch an
-- ordinary fit would have made) and the groups' rows. Rows whose group is NULL only count
-- in the pooled model.
{{ sql.temp_table(pooled) }}
SELECT {{ sql.all_except(['__sqlnb_pooled'] + (t.groups | map(attribute='column') | list)) }}
FROM {{ combined }}
WHERE __sqlnb_pooled;

{{ sql.temp_table(t.batch) }}
SELECT {{ sql.all_except(['__sqlnb_pooled']) }}
FROM {{ combined }}
WHERE NOT __sqlnb_pooled{% for g in t.groups %} AND {{ g.column }} IS NOT NULL{% endfor %};

DROP TABLE {{ combined }};
