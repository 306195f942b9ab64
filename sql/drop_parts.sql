-- Remove the per-family relations a mixed model of this name may have (and, for a
-- mixed model replacing a single-family one, the single-family relations).
DROP VIEW IF EXISTS {{ t.feature_params }};
DROP TABLE IF EXISTS {{ t.feature_stats }};
{% for family in families %}
DROP VIEW IF EXISTS {{ (model ~ '_' ~ family ~ '_params') | ident }};
DROP TABLE IF EXISTS {{ (model ~ '_' ~ family ~ '_stats') | ident }};
{% endfor %}
