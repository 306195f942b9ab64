{#-
  A mixed model (family = 'auto'): one family per column. It has no statistics of its
  own; each part uses its family's template with its own tables (see sqlnb/mixed.py).
  Scoring sums the parts' terms; the class constant already holds the log prior once
  plus each part's own constant (e.g. Gaussian's -0.5 * sum log(2 pi var)).
-#}

{% macro jll(c, p) %}
{{ c.constant | lit }}
{% for part in c.parts %}
{% import part.template as sub %}
        + ({{ sub.jll(part.c, part.p) | trim }})
{% endfor %}
{% endmacro %}
