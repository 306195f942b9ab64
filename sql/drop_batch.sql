-- The batch's helper tables are not needed once it is merged.
DROP TABLE IF EXISTS {{ t.batch }};
DROP TABLE IF EXISTS {{ t.shifts }};
