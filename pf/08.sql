-- Number of classes the model knows.
SELECT count(*) FROM "loop_class_stats"