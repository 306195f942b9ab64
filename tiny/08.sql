-- A cheap look at the first rows: per class there (labelled or not), each feature's mean,
-- smallest and largest value. Python takes the shift of the feature's batch sums from the
-- means (so the sums keep their precision when values are large) and, where some class
-- lies away from that shift, has the batch query sum that feature around each class's own
-- value from the same rows (families/gaussian.sql's pilot_shifts), so well-separated
-- classes need no rescan; a class the first rows miss is caught by the batch's
-- cancellation check. No quantiles and no joins: with thousands of features those cost
-- more than the scan. The rows are the source's first ones: a filter under the LIMIT
-- would make DuckDB's Parquet reader fetch every row group, a second full read of the
-- file; without it, only the first row group.
SELECT
    avg(CAST("x0" AS DOUBLE)), min(CAST("x0" AS DOUBLE)), max(CAST("x0" AS DOUBLE)),
    avg(CAST("x1" AS DOUBLE)), min(CAST("x1" AS DOUBLE)), max(CAST("x1" AS DOUBLE)),
    avg(CAST("x2" AS DOUBLE)), min(CAST("x2" AS DOUBLE)), max(CAST("x2" AS DOUBLE)),
    avg(CAST("x3" AS DOUBLE)), min(CAST("x3" AS DOUBLE)), max(CAST("x3" AS DOUBLE)),
    avg(CAST("x4" AS DOUBLE)), min(CAST("x4" AS DOUBLE)), max(CAST("x4" AS DOUBLE)),
    avg(CAST("x5" AS DOUBLE)), min(CAST("x5" AS DOUBLE)), max(CAST("x5" AS DOUBLE)),
    avg(CAST("x6" AS DOUBLE)), min(CAST("x6" AS DOUBLE)), max(CAST("x6" AS DOUBLE)),
    avg(CAST("x7" AS DOUBLE)), min(CAST("x7" AS DOUBLE)), max(CAST("x7" AS DOUBLE)),
    avg(CAST("x8" AS DOUBLE)), min(CAST("x8" AS DOUBLE)), max(CAST("x8" AS DOUBLE)),
    avg(CAST("x9" AS DOUBLE)), min(CAST("x9" AS DOUBLE)), max(CAST("x9" AS DOUBLE)),
    avg(CAST("x10" AS DOUBLE)), min(CAST("x10" AS DOUBLE)), max(CAST("x10" AS DOUBLE)),
    avg(CAST("x11" AS DOUBLE)), min(CAST("x11" AS DOUBLE)), max(CAST("x11" AS DOUBLE)),
    avg(CAST("x12" AS DOUBLE)), min(CAST("x12" AS DOUBLE)), max(CAST("x12" AS DOUBLE)),
    avg(CAST("x13" AS DOUBLE)), min(CAST("x13" AS DOUBLE)), max(CAST("x13" AS DOUBLE)),
    avg(CAST("x14" AS DOUBLE)), min(CAST("x14" AS DOUBLE)), max(CAST("x14" AS DOUBLE)),
    avg(CAST("x15" AS DOUBLE)), min(CAST("x15" AS DOUBLE)), max(CAST("x15" AS DOUBLE)),
    avg(CAST("x16" AS DOUBLE)), min(CAST("x16" AS DOUBLE)), max(CAST("x16" AS DOUBLE)),
    avg(CAST("x17" AS DOUBLE)), min(CAST("x17" AS DOUBLE)), max(CAST("x17" AS DOUBLE)),
    avg(CAST("x18" AS DOUBLE)), min(CAST("x18" AS DOUBLE)), max(CAST("x18" AS DOUBLE)),
    avg(CAST("x19" AS DOUBLE)), min(CAST("x19" AS DOUBLE)), max(CAST("x19" AS DOUBLE)),
    "y"
FROM (SELECT * FROM "__sqlnb_source_19365_1" LIMIT 2048) AS __first
GROUP BY "y"
