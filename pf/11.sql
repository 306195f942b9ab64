-- The metadata row of model loop (every column: a schema-1 row has no spec).
SELECT * FROM "loop_meta"