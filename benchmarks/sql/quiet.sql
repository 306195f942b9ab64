-- Benchmark connections print no progress bars.
SET enable_progress_bar = false;
