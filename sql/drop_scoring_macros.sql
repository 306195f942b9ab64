-- Remove the scoring macros of model {{ model_comment | comment }}.
DROP MACRO TABLE IF EXISTS {{ m.score }};
DROP MACRO IF EXISTS {{ m.predict_proba }};
DROP MACRO IF EXISTS {{ m.predict_log_proba }};
DROP MACRO IF EXISTS {{ m.predict }};
DROP MACRO IF EXISTS {{ m.joint }};
