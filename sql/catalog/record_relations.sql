-- The relations model {{ model | comment }} owns, recorded again: a call that made
-- relations without rewriting the metadata row (the scoring macros made by create_macros
-- after a write without them) adds their names to its record.
UPDATE {{ t.meta }} SET relations = {{ relations_json | lit }};
