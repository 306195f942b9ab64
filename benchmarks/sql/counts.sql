-- Wide count data (word counts in a document, say): column j is a geometric count whose
-- rate depends on the class, so multinomial naive Bayes has something to learn.
COPY (
    SELECT
        y,
    {% for j in range(features) %}
        CAST(floor(-ln(1 - random()) * {{ (0.2 + (j % 5) * 0.1) | lit }} * (1 + ((y + {{ j }}) % {{ classes }}) * 0.25)) AS INTEGER) AS w{{ j }}{{ "," if not loop.last }}
    {% endfor %}
    FROM (SELECT CAST(floor(random() * {{ classes }}) AS INTEGER) AS y FROM range({{ rows }}))
) TO {{ path | lit }} (FORMAT parquet);
