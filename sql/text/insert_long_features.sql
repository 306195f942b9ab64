-- Features of a long table the model has not seen yet join its features, numbered after
-- the known ones in sorted order, with the smoothing alpha.
INSERT INTO {{ t.features }} (feature_index, feature, type, alpha, coding, min_categories)
SELECT
    CAST((SELECT count(*) FROM {{ t.features }}) + row_number() OVER (ORDER BY feature) - 1 AS INTEGER),
    feature,
    'DOUBLE',
    {{ alpha | lit }},
    NULL,
    NULL
FROM (
    SELECT DISTINCT CAST({{ feature }} AS {{ sql.type('VARCHAR') }}) AS feature
    FROM {{ entries }}
    WHERE {{ feature }} IS NOT NULL
)
WHERE feature NOT IN (SELECT feature FROM {{ t.features }});
