-- {{ action }} model {{ model_comment }} ({{ family_name }} naive Bayes): the statements sqlnb
-- runs, in order, as one transaction. Run it with any DuckDB client, e.g.
--     duckdb models.duckdb < {{ model_comment }}_{{ action | lower }}.sql
-- It writes the statistics tables and parameter views; it does not check the data (a
-- Python fit does) and does not create the scoring macros (see docs/sql.md).
BEGIN TRANSACTION;

{% for statement in statements %}
{{ statement | trim }}{{ ";" if not (statement | trim).endswith(";") }}

{% endfor %}
COMMIT;
