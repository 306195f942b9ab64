-- Documents the model has been fitted on, over all its batches.
SELECT sum(n) FROM {{ t.class_stats }}
