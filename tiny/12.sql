-- The batch's helper tables are not needed once it is merged. An update's planned scan
-- keeps its batch table from call to call (`keep_batch`: emptied, not dropped, so the
-- catalog does not change and its planned statements stay planned); a rescan's
-- per-class shifts table goes unless `shifts` is false (none was made).
DROP TABLE IF EXISTS "__sqlnb_batch_tiny";
DROP TABLE IF EXISTS "__sqlnb_shifts_tiny";
