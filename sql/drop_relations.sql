-- Remove relations the model owns (sqlnb/ownership.py decides which: never another's).
{% for r in relations %}
DROP {{ r.kind }} IF EXISTS {{ r.name | ident }};
{% endfor %}
