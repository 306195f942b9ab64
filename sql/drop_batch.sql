DROP TABLE IF EXISTS {{ t.batch }};
