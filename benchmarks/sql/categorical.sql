-- Categorical data: string columns whose category depends weakly on the class.
-- Column j has {{ cardinality }} categories 'c0'...; a row takes category (class + noise).
COPY (
    SELECT
        y,
    {% for j in range(features) %}
        'c' || CAST((y * {{ j + 1 }} + CAST(floor(random() * random() * {{ cardinality }}) AS INTEGER)) % {{ cardinality }} AS VARCHAR) AS s{{ j }}{{ "," if not loop.last }}
    {% endfor %}
    FROM (SELECT CAST(floor(random() * {{ classes }}) AS INTEGER) AS y FROM range({{ rows }}))
) TO {{ path | lit }} (FORMAT parquet);
