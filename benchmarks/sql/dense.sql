-- Dense Gaussian data: class y uniform over {{ classes }} labels; feature j is normal
-- (Box-Muller) with a mean that moves with the class and a spread that depends on j.
COPY (
    SELECT
        y,
    {% for j in range(features) %}
        y * {{ (0.3 * (j % 4 + 1)) | lit }} + {{ j % 7 }}
            + sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) * {{ (1 + 0.1 * (j % 3)) | lit }} AS x{{ j }}{{ "," if not loop.last }}
    {% endfor %}
    FROM (SELECT CAST(floor(random() * {{ classes }}) AS INTEGER) AS y FROM range({{ rows }}))
) TO {{ path | lit }} (FORMAT parquet);
