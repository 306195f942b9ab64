-- Tables of the per-group models of model {{ model_comment | comment }}: the same statistics as the
-- pooled model's tables, keyed by the group columns first (earlier ones are released
-- first: see sqlnb/ownership.py).
{% import family_template as family %}
{% from 'families/common.sql' import by_group %}

CREATE TABLE {{ group_columns }} (
    position {{ sql.type('INTEGER') }} NOT NULL,   -- order of the column in group_by
    name     {{ sql.type('VARCHAR') }} NOT NULL,   -- a column of the source that splits the rows into groups
    type     {{ sql.type('VARCHAR') }} NOT NULL    -- its type, in the engine's names
);
INSERT INTO {{ group_columns }} VALUES
{% for g in t.groups %}
    ({{ loop.index0 }}, {{ g.name | lit }}, {{ g.type | lit }}){{ "," if not loop.last }}
{% endfor %};

CREATE TABLE {{ t.class_stats }} (
{% for g in t.groups %}
    {{ g.column }} {{ g.type }} NOT NULL,
{% endfor %}
    class  {{ class_type }} NOT NULL,
    n      BIGINT NOT NULL,   -- training rows of the class in the group
    -- their summed sample weight
    weight DOUBLE NOT NULL{{ sql.primary_key([by_group(t) ~ 'class']) }}
);

{{ family.stats_table(t, class_type) }}
