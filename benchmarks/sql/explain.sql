-- DuckDB parses, binds and plans the statement without reading a row.
EXPLAIN {{ query }};
