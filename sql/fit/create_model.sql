-- Create the (empty) tables of model {{ model | comment }} (earlier ones are released
-- first: see sqlnb/ownership.py).
{% import family_template as family %}
{#- `meta_later`, `features_later`: a staged write creates its metadata table with its
    row (write_meta.sql) and its features table with theirs (insert_features.sql) -#}
{% if not meta_later | default(false) %}

CREATE TABLE {{ t.meta }} (
    schema_version {{ sql.type('INTEGER') }} NOT NULL,
    model          {{ sql.type('VARCHAR') }} NOT NULL,
    family         {{ sql.type('VARCHAR') }} NOT NULL,
    params         {{ sql.type('VARCHAR') }} NOT NULL,   -- hyperparameters, JSON
    target         {{ sql.type('VARCHAR') }} NOT NULL,
    target_type    {{ sql.type('VARCHAR') }} NOT NULL,
    weight         {{ sql.type('VARCHAR') }},            -- sample-weight column of the last fit, if any
    features       {{ sql.type('VARCHAR') }} NOT NULL,   -- JSON list of {"name", "type"}
    classes        {{ sql.type('VARCHAR') }} NOT NULL,   -- JSON list of the class labels, sorted
    fitted_at      {{ sql.type('TIMESTAMP') }} NOT NULL,
    sqlnb_version  {{ sql.type('VARCHAR') }} NOT NULL,
    spec           {{ sql.type('VARCHAR') }},            -- JSON: input kind, parts, group columns (schema 2)
    relations      {{ sql.type('VARCHAR') }}             -- JSON list of the relations the model owns
);
{% endif %}

CREATE TABLE {{ t.class_stats }} (
    class  {{ class_type }} NOT NULL,
    n      BIGINT NOT NULL,   -- training rows of the class
    -- their summed sample weight (scikit-learn's class_count_)
    weight DOUBLE NOT NULL{{ sql.primary_key(['class']) }}
);

{% if not features_later | default(false) %}
CREATE TABLE {{ t.features }} (
    feature_index  {{ sql.type('INTEGER') }} NOT NULL,
    feature        {{ sql.type('VARCHAR') }} NOT NULL,
    type           {{ sql.type('VARCHAR') }} NOT NULL,   -- the column's DuckDB type at fit time
    alpha          DOUBLE,             -- additive smoothing (discrete families)
    coding         {{ sql.type('VARCHAR') }},            -- categorical: 'integer' codes 0..k-1 or 'value'
    -- categorical: lower bound on the number of categories
    min_categories BIGINT{{ sql.primary_key(['feature']) }}
);
{% endif %}

{{ family.stats_table(t, class_type) }}
