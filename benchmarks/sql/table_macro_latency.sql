-- One row scored through the model's table macro (the row's columns and its prediction).
SELECT * FROM {{ macro | ident }}({{ table | lit }});
