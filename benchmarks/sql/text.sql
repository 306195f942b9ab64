-- Short documents: each word drawn from a class-dependent slice of a small vocabulary.
COPY (
    SELECT
        y,
        array_to_string(list_transform(range({{ words }}),
            lambda w: 'w' || CAST((y * 37 + CAST(floor(random() * random() * {{ vocabulary }}) AS INTEGER)) % {{ vocabulary }} AS VARCHAR)), ' ') AS body
    FROM (SELECT CAST(floor(random() * {{ classes }}) AS INTEGER) AS y FROM range({{ rows }}))
) TO {{ path | lit }} (FORMAT parquet);
