-- Fold the batch's statistics into the model's tables: an upsert keyed by class (and
-- feature, category), adding counts and combining moments pairwise. With sign = -1
-- (forget) the batch is taken out again by the same update run backwards. `t.refill`: a
-- fit into the tables of an earlier fit of the same shape, emptied here first (in the
-- write's transaction: a failure leaves the earlier rows).
{% import family_template as family %}
{% from 'update/incremental.sql' import signed, added %}
{% from 'families/common.sql' import by_group %}
{% set sign = sign | default(1) %}
{% if t.get('refill') %}
{{ sql.delete_all(t.class_stats) }};
{{ sql.delete_all(t.feature_stats) }};
{% endif %}
{% set keys = (t.get('groups', []) | map(attribute='column') | list) + ['class'] %}
{% set rows %}
SELECT {{ by_group(t) }}class, {{ signed('n', sign) }}, {{ signed('weight', sign) }}
FROM {{ t.batch }}
{% if family_long_batch or t.get('long_sums') %}
WHERE feature IS NULL
{% endif %}
{% endset %}
{% call(column, old, new) sql.upsert(t.class_stats, keys, ['n', 'weight'], rows, t.get('next_class_stats'), fresh=t.get('fresh', false)) -%}
{% if column == 'n' %}{{ old }}.n + {{ new }}.n{% else %}{{ added(old ~ '.weight', new ~ '.weight', sign) }}{% endif %}
{%- endcall %};

{{ family.merge(t, features, weighted, sign) }}
