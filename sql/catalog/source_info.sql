-- How many rows the source has, and how many of them have a target.
SELECT count(*) AS n_rows, count({{ target }}) AS n_labelled FROM {{ source }}
