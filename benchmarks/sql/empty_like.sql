-- An empty table with the columns of a registered relation.
CREATE TABLE {{ table | ident }} AS SELECT * FROM {{ source | ident }} LIMIT 0;
