-- The table macro explaining a relation with model {{ model | comment }}:
-- SELECT * FROM <name>_explain('new_rows') lists each feature's term of each class's joint
-- log-likelihood per row, as model.explain does (sql/reports/explain.sql, parameters inlined).
CREATE OR REPLACE MACRO {{ name }}(relation) AS TABLE
{{ body }};
