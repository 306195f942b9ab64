-- One row scored through the model's SQL macro.
SELECT {{ macro | ident }}(t) FROM {{ table | ident }} AS t;
