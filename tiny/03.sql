-- The metadata row of model tiny (every column: a schema-1 row has no spec).
SELECT * FROM "tiny_meta"