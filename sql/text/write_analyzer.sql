-- (Re)write the one row that says how model {{ model | comment }} reads its input.
{{ sql.delete_all(t.analyzer) }};
INSERT INTO {{ t.analyzer }} VALUES ({{ input | lit }}, {{ options_json | lit }}, {{ n_documents | lit }});
