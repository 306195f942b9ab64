-- One scan of the source: this batch's statistics, per class (and per category for
-- categorical models), into a temporary table that is merged into the model afterwards
-- (`into`: an update's planned scan, into the table fit/batch_table.sql created;
-- `overwrite`: an update on an engine without temporary tables, over the rows of the
-- batch table an earlier update of the same columns left).
{% import family_template as family %}
{% from 'families/common.sql' import by_group %}
{% if into | default(false) %}
INSERT INTO {{ t.batch }}
{% elif overwrite | default(false) %}
{{ sql.overwrite_table(t.batch) }}
{% else %}
{{ sql.temp_table(t.batch) }}
{% endif %}
{% if family_has_batch %}
{{ family.batch(source, target, weight, features, t) }}
{% else %}
SELECT
{% if t.get('groups') %}
    -- per-group rows and, in the same scan, the pooled model's rows (group NULL; the first
    -- group column tells the two grouping sets apart: Spark's GROUPING takes one column)
    GROUPING({{ t.groups[0].column }}) > 0 AS __sqlnb_pooled,
{% for g in t.groups %}
    {{ g.column }},
{% endfor %}
{% endif %}
    {{ target }} AS class,
    count(*) AS n,
    {% if weight %}sum({{ weight }}){% else %}CAST(count(*) AS DOUBLE){% endif %} AS weight,
    {% if weight %}min({{ weight }}) AS min_weight,{% endif %}
    {{ family.batch_columns(features, weight, **batch_options) | trim | trim(',') }}
FROM {{ source }}
WHERE {{ target }} IS NOT NULL
{% if t.get('groups') %}
GROUP BY GROUPING SETS (({{ by_group(t) }}{{ target }}), ({{ target }}))
{% else %}
GROUP BY {{ target }}
{% endif %}
{% endif %};
