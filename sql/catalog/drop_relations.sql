-- Remove relations the model owns (sqlnb/ownership.py decides which: never another's).
{# a VERSIONED relation is the view over a table's current version (Spark); the versions
    are listed after it, as tables; names arrive quoted (and on Spark qualified with the
    engine's database) #}
{% for r in relations %}
DROP {{ 'VIEW' if r.kind == 'VERSIONED' else r.kind }} IF EXISTS {{ r.name }};
{% endfor %}
