-- Fold the statistics of another model with the same specification into model
-- {{ model | comment }}: the same upserts as a batch, with the other model's tables as input.
{% import family_template as family %}
{% from 'incremental.sql' import signed, added %}
{% set rows %}
SELECT class, {{ signed('n', sign) }}, {{ signed('weight', sign) }}
FROM {{ source.class_stats }}
{% endset %}
{% call(column, old, new) sql.upsert(t.class_stats, ['class'], ['n', 'weight'], rows, t.get('next_class_stats')) -%}
{% if column == 'n' %}{{ old }}.n + {{ new }}.n{% else %}{{ added(old ~ '.weight', new ~ '.weight', sign) }}{% endif %}
{%- endcall %};

{% if family_statistics_shape == 'moments' %}
{{ family.merge_model(t, source, sign, origin_shifts | default([])) }}
{% else %}
{{ family.merge_model(t, source, sign) }}
{% endif %}
