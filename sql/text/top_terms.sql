-- The {{ n | comment }} terms with the largest coefficient per class: what pushes a document towards
-- the class (log P(term | class) for multinomial, the complement weight for complement,
-- log P(present) - log P(absent) for bernoulli).
{% import family_template as family %}
SELECT class, term, coef
FROM (
    SELECT
        c.class,
        k.feature AS term,
        k.coef,
        row_number() OVER (PARTITION BY k.class_index ORDER BY k.coef DESC, k.feature) AS rank
    FROM (
        {{ family.read_params(t) }}
    ) AS k
    JOIN {{ t.class_params }} AS c USING (class_index)
)
WHERE rank <= {{ n | lit }}
ORDER BY class, rank
