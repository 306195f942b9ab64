-- Compile a regular expression (the one parameter) with DuckDB's engine (RE2), which
-- refuses some of what Python's `re` accepts (look-around, back-references).
SELECT regexp_extract_all('', ?, 0)
