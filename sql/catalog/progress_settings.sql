-- DuckDB's progress reporting for one connection: sqlnb reads the percentage itself
-- (query_progress) and draws its own bar, so DuckDB's printed bar stays off meanwhile.
{% if read %}
SELECT current_setting('enable_progress_bar'), current_setting('enable_progress_bar_print')
{% else %}
{% if enabled is defined %}
SET enable_progress_bar = {{ enabled | lit }};
{% endif %}
SET enable_progress_bar_print = {{ printed | lit }};
{% endif %}
