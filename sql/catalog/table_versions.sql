{#-
  The statements of versioned writes, for engines without upserts or transactions (Spark):
  a write creates the table `<name>__v<k>`, then one view `<name>` is switched to it, and
  older versions are dropped. `table` and `view` arrive quoted by the dialect.
    what = 'columns': a query whose plan gives a relation's column names and types;
    what = 'show':    the definition of a view (which version it reads);
    what = 'switch':  point the view at a version, in one statement;
    what = 'drop':    drop one version;
    what = 'copy':    a new version `into` holding the rows of `table` (an update's start);
    what = 'drop_view': drop the view `table` (a staged write's scratch parameter views);
    what = 'tables' / 'views': the names in `database` (views: temporary ones too);
    what = 'functions': the SQL functions of `database` (and temporary ones).
-#}
{% if what == 'columns' -%}
SELECT * FROM {{ table }}
{%- elif what == 'show' -%}
SHOW CREATE TABLE {{ table }}
{%- elif what == 'switch' -%}
CREATE OR REPLACE VIEW {{ view }} AS SELECT * FROM {{ table }}
{%- elif what == 'drop' -%}
DROP TABLE IF EXISTS {{ table }}
{%- elif what == 'copy' -%}
CREATE TABLE {{ into }} AS SELECT * FROM {{ table }}
{%- elif what == 'tables' -%}
SHOW TABLES IN {{ database }}
{%- elif what == 'views' -%}
SHOW VIEWS IN {{ database }}
{%- elif what == 'functions' -%}
SHOW USER FUNCTIONS IN {{ database }}
{%- elif what == 'drop_view' -%}
DROP VIEW IF EXISTS {{ table }}
{%- endif %}
