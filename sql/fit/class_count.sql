-- Number of classes the model knows.
SELECT count(*) FROM {{ t.class_stats }}
