-- The metadata row of model {{ model | lit }} (every column: a schema-1 row has no spec).
SELECT * FROM {{ t.meta }}
