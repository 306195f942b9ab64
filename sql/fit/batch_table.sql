-- The (empty) batch table of an update whose scan is planned once: the columns and types
-- its first scan produced, so the scan itself can run as a planned INSERT.
CREATE OR REPLACE TEMP TABLE {{ t.batch }} (
{% for name, type in columns %}
    {{ name | ident }} {{ type }}{{ "," if not loop.last }}
{% endfor %}
)
