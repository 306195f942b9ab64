{#- The pieces of an explanation shared by reports/explain.sql and the Spark function
    <name>_explain (score/scoring_functions.sql). An `entry` is a feature's family template,
    that family's parameters `p` and its scoring term: its log-likelihood is its share of
    the class constant (the family's `share_of`, 0 for a family without one) plus its term
    (`term_of`, the very expression the family's `jll` sums); a class's log prior is its
    constant less every entry's share. -#}
{% macro share(entry) -%}
{% import entry.template as family %}
{% if family.share_of is defined %}{{ family.share_of(entry.term) | trim }}{% else %}0{% endif %}
{%- endmacro %}
{% macro entry_term(entry) -%}
{% import entry.template as family %}
{{ share(entry) | trim }} + ({{ family.term_of(entry.term, entry.p) | trim }})
{%- endmacro %}
{#- (the shares are subtracted a hundred at a time: one subtraction per feature would nest
    an expression past DuckDB's depth limit of 1,000 in a model of 1,000 features) -#}
{% macro entries_prior(constant, entries) -%}
{{ constant | lit }}{% for group in entries | batch(100) %} - ({% for entry in group %}({{ share(entry) | trim }}){{ " + " if not loop.last }}{% endfor %}){% endfor %}
{%- endmacro %}
