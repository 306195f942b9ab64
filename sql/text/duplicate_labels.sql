-- Documents with more than one label row (different classes or weights): they would be
-- counted twice.
SELECT count(*) FROM (
    SELECT {{ row }}
    FROM (
        SELECT {% if distinct_rows %}DISTINCT {% endif %}{{ row }}, {{ target }}{% if weight %}, {{ weight }}{% endif %}

        FROM {{ rows }}
        WHERE {{ target }} IS NOT NULL
    )
    GROUP BY {{ row }}
    HAVING count(*) > 1
)
