-- Number of rows in the batch table (classes, or class x category cells).
SELECT count(*) FROM {{ t.batch }}
