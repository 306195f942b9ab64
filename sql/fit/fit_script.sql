-- {{ action | comment }} model {{ model_comment | comment }} ({{ family_name | comment }} naive Bayes): the statements sqlnb
-- runs, in order, as one transaction. Run it with any DuckDB client, e.g.
--     duckdb models.duckdb < {{ model_comment | comment }}_{{ action | lower | comment }}.sql
-- It writes the statistics tables and parameter views; it does not check the data (a
-- Python fit does), and it drops the scoring macros, which embed fitted values: re-create
-- them with sqlnb.load(con, name).create_macros(), or score with model.to_sql() (docs/sql.md).
BEGIN TRANSACTION;

{% for statement in statements %}
{{ statement | trim }}{{ ";" if not (statement | trim).endswith(";") }}

{% endfor %}
COMMIT;
