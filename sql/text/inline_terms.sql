-- The vocabulary of term model {{ model | comment }} with every class's coefficient, for a
-- scoring statement that inlines them: (term, idf, coefficients in class order).
{% import family_template as family %}
SELECT v.term, v.idf, k.coefs
FROM {{ t.vocabulary }} AS v
JOIN (
    SELECT feature, {{ sql.ordered_list('coef', 'class_index') }} AS coefs
    FROM (
        {{ family.read_params(t) | trim }}
    )
    GROUP BY feature
) AS k ON k.feature = v.term
ORDER BY v.term_index
