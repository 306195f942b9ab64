-- The vocabulary's new terms become the model's features, with the smoothing alpha.
INSERT INTO {{ t.features }} (feature_index, feature, type, alpha, coding, min_categories)
SELECT term_index, term, 'DOUBLE', {{ alpha | lit }}, NULL, NULL
FROM {{ t.vocabulary }}
WHERE term NOT IN (SELECT feature FROM {{ t.features }});
