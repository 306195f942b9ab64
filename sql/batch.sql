-- One scan of the source: this batch's statistics, per class (and per category for
-- categorical models), into a temporary table that is merged into the model afterwards.
{% import family_template as family %}
CREATE OR REPLACE TEMP TABLE {{ t.batch }} AS
{% if family_has_batch %}
{{ family.batch(source, target, weight, features, t) }}
{% else %}
SELECT
    {{ target }} AS class,
    count(*) AS n,
    {% if weight %}sum({{ weight }}){% else %}CAST(count(*) AS DOUBLE){% endif %} AS weight,
    {% if weight %}min({{ weight }}) AS min_weight,{% endif %}
    {{ family.batch_columns(features, weight, **batch_options) }}
FROM {{ source }}
WHERE {{ target }} IS NOT NULL
GROUP BY {{ target }}
{% endif %};
