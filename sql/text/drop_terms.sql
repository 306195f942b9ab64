-- The first pass's per class x term statistics are not needed once the batch is built.
DROP TABLE IF EXISTS {{ t.terms }};
