-- {{ action | comment }} model {{ model_comment | comment }} ({{ family_name | comment }} naive Bayes): the statements sqlnb
{{ sql.script_intro(model_comment, action) }}
-- It writes the statistics tables and parameter views; it does not check the data (a
-- Python fit does), and it drops the scoring macros, which embed fitted values: re-create
-- them with sqlnb.load(con, name).create_macros(), or score with model.to_sql() (docs/sql.md).
{{ sql.script_begin() }}
{% for table in replaced %}
{{ sql.script_replaces(table) }}
{% endfor %}

{% for statement in statements %}
{{ statement | trim }}{{ ";" if not (statement | trim).endswith(";") }}

{% endfor %}
{{ sql.script_end() }}
