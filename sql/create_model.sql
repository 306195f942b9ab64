-- Create the (empty) tables of model {{ model | comment }} (earlier ones are released
-- first: see sqlnb/ownership.py).
{% import family_template as family %}

CREATE TABLE {{ t.meta }} (
    schema_version INTEGER NOT NULL,
    model          VARCHAR NOT NULL,
    family         VARCHAR NOT NULL,
    params         VARCHAR NOT NULL,   -- hyperparameters, JSON
    target         VARCHAR NOT NULL,
    target_type    VARCHAR NOT NULL,
    weight         VARCHAR,            -- sample-weight column of the last fit, if any
    features       VARCHAR NOT NULL,   -- JSON list of {"name", "type"}
    classes        VARCHAR NOT NULL,   -- JSON list of the class labels, sorted
    fitted_at      TIMESTAMP NOT NULL,
    sqlnb_version  VARCHAR NOT NULL,
    spec           VARCHAR,            -- JSON: input kind, parts, group columns (schema 2)
    relations      VARCHAR             -- JSON list of the relations the model owns
);

CREATE TABLE {{ t.class_stats }} (
    class  {{ class_type }} NOT NULL PRIMARY KEY,
    n      BIGINT NOT NULL,   -- training rows of the class
    weight DOUBLE NOT NULL    -- their summed sample weight (scikit-learn's class_count_)
);

CREATE TABLE {{ t.features }} (
    feature_index  INTEGER NOT NULL,
    feature        VARCHAR NOT NULL PRIMARY KEY,
    type           VARCHAR NOT NULL,   -- the column's DuckDB type at fit time
    alpha          DOUBLE,             -- additive smoothing (discrete families)
    coding         VARCHAR,            -- categorical: 'integer' codes 0..k-1 or 'value'
    min_categories BIGINT              -- categorical: lower bound on the number of categories
);

{{ family.stats_table(t, class_type) }}
