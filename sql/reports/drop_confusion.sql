-- The confusion table is not needed once the metrics are read.
DROP TABLE IF EXISTS {{ confusion }};
