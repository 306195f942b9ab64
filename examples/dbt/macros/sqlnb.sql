{#- Calls of a sqlnb model's scoring macros, and a test of its accuracy. A sqlnb fit
    creates the macros <model>_predict(row), <model>_predict_proba(row), ... in the
    model's database; these helpers quote the names so any model name works. -#}

{#- The predicted class of each row. `row` is the alias of the scored relation. -#}
{% macro sqlnb_predict(model, row) -%}
    {{ adapter.quote(model ~ '_predict') }}({{ row }})
{%- endmacro %}

{#- The probability of class `label` (a STRUCT field named by the label as text). -#}
{% macro sqlnb_proba(model, row, label) -%}
    {{ adapter.quote(model ~ '_predict_proba') }}({{ row }})[{{ dbt.string_literal(label) }}]
{%- endmacro %}

{#- Fails when the share of rows whose `column_name` equals `truth` is below `at_least`,
    over the rows `where` selects (a SQL condition, e.g. holdout rows). -#}
{% test sqlnb_accuracy(model, column_name, truth, at_least, where='true') %}
select accuracy, rows_scored
from (
    select avg(case when {{ column_name }} = {{ truth }} then 1.0 else 0.0 end) as accuracy,
           count(*) as rows_scored
    from {{ model }}
    where {{ where }}
)
where rows_scored = 0 or accuracy < {{ at_least }}
{% endtest %}
