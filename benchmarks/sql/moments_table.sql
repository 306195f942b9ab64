-- The statistics table of the partial_fit floor (moments_floor.sql).
CREATE TABLE {{ table | ident }} (
    class {{ class_type }},
    feature VARCHAR,
    n BIGINT,
    s1 DOUBLE,
    s2 DOUBLE,
    PRIMARY KEY (class, feature)
);
