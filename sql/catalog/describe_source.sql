-- Column names and types of a source, without reading its rows.
DESCRIBE SELECT * FROM {{ source }}
