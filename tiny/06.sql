-- Create the (empty) tables of model tiny (earlier ones are released
-- first: see sqlnb/ownership.py).

CREATE TABLE "tiny_meta" (
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

CREATE TABLE "tiny_class_stats" (
    class  BIGINT NOT NULL,
    n      BIGINT NOT NULL,   -- training rows of the class
    -- their summed sample weight (scikit-learn's class_count_)
    weight DOUBLE NOT NULL,
    PRIMARY KEY (class)
);

CREATE TABLE "tiny_features" (
    feature_index  INTEGER NOT NULL,
    feature        VARCHAR NOT NULL,
    type           VARCHAR NOT NULL,   -- the column's DuckDB type at fit time
    alpha          DOUBLE,             -- additive smoothing (discrete families)
    coding         VARCHAR,            -- categorical: 'integer' codes 0..k-1 or 'value'
    -- categorical: lower bound on the number of categories
    min_categories BIGINT,
    PRIMARY KEY (feature)
);

CREATE TABLE "tiny_feature_stats" (
    class   BIGINT NOT NULL,
    feature VARCHAR NOT NULL,
    n       BIGINT NOT NULL,   -- rows with a value
    weight  DOUBLE NOT NULL,   -- sum of sample weights of those rows
    mean    DOUBLE NOT NULL,   -- weighted mean
    m2      DOUBLE NOT NULL,   -- weighted sum of squared deviations from the mean
    n_mean  DOUBLE NOT NULL,   -- unweighted mean
    -- unweighted sum of squared deviations
    n_m2    DOUBLE NOT NULL,
    PRIMARY KEY (class, feature)
);

