-- One small batch appended to a table: the round trip partial_fit is compared with.
INSERT INTO {{ table | ident }} SELECT * FROM {{ source | ident }};
