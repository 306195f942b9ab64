-- Fold the statistics of another model with the same specification into model
-- {{ model | comment }}: the same upserts as a batch, with the other model's tables as input.
-- (`class_totals`: false for the second and later parts of a model, whose class totals
-- the first part's upsert brought; per-group tables are keyed by the group columns too.)
{% import family_template as family %}
{% from 'update/incremental.sql' import signed, added %}
{% from 'families/common.sql' import by_group %}
{% if class_totals | default(true) %}
{% set keys = (t.get('groups', []) | map(attribute='column') | list) + ['class'] %}
{% set rows %}
SELECT {{ by_group(t) }}class, {{ signed('n', sign) }}, {{ signed('weight', sign) }}
FROM {{ source.class_stats }}
{% endset %}
{% call(column, old, new) sql.upsert(t.class_stats, keys, ['n', 'weight'], rows, t.get('next_class_stats')) -%}
{% if column == 'n' %}{{ old }}.n + {{ new }}.n{% else %}{{ added(old ~ '.weight', new ~ '.weight', sign) }}{% endif %}
{%- endcall %};
{% endif %}

{% if family_statistics_shape == 'moments' %}
{{ family.merge_model(t, source, sign, origin_shifts | default([])) }}
{% else %}
{{ family.merge_model(t, source, sign) }}
{% endif %}
