-- The floor of a scoring macro that reads its parameters from a table: macros of the same
-- shape as the model's (the row named once, its features one list cast once) doing no
-- arithmetic. `<name>_floor_row(t)` only builds the row's list; `<name>_floor_read(t)`
-- also reads the parameter rows, as every call of the model's macros must.
CREATE OR REPLACE MACRO {{ (model ~ '_floor_row') | ident }}(r) AS
    list_transform([r], lambda w: CAST([{% for f in features %}w.{{ f | ident }}{{ ", " if not loop.last }}{% endfor %}] AS DOUBLE[]))[1];
CREATE OR REPLACE MACRO {{ (model ~ '_floor_read') | ident }}(r) AS
    list_transform([{
        'v': list_transform([r], lambda w: CAST([{% for f in features %}w.{{ f | ident }}{{ ", " if not loop.last }}{% endfor %}] AS DOUBLE[]))[1],
        'p': (SELECT list(c ORDER BY c.class_index) FROM {{ (model ~ '_scoring_params') | ident }} AS c)
    }], lambda a: list_count(a.v) + len(a.p))[1];
