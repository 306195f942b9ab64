-- The tables a term model adds to model {{ model | comment }}: how its input is read (the
-- analyzer's settings), and for text the vocabulary with document frequencies and idf.
-- A term model can have a million features: its features and feature_stats tables are
-- recreated without primary keys (whose indexes would cost more than the fit), and
-- merge_terms.sql rebuilds them instead of upserting.
-- (The earlier relations of these names are released first: see sqlnb/ownership.py.)
CREATE TABLE {{ t.analyzer }} (
    input       {{ sql.type('VARCHAR') }} NOT NULL,   -- 'text' (a text column) or 'long' (document, feature, value)
    options     {{ sql.type('VARCHAR') }} NOT NULL,   -- JSON: the analyzer's settings, or the long table's columns
    n_documents BIGINT NOT NULL     -- documents behind the document frequencies and idf
);

CREATE TABLE {{ t.vocabulary }} (
    term       {{ sql.type('VARCHAR') }} NOT NULL,
    term_index {{ sql.type('INTEGER') }} NOT NULL,    -- position in sorted order, as CountVectorizer numbers terms
    df         BIGINT,              -- documents that contain the term (NULL: not needed)
    count      DOUBLE NOT NULL,     -- occurrences in the fitted documents
    idf        DOUBLE NOT NULL      -- inverse document frequency (1 when idf is not used)
);

DROP TABLE IF EXISTS {{ t.features }};
CREATE TABLE {{ t.features }} (
    feature_index  {{ sql.type('INTEGER') }} NOT NULL,
    feature        {{ sql.type('VARCHAR') }} NOT NULL,   -- the term or feature key
    type           {{ sql.type('VARCHAR') }} NOT NULL,
    alpha          DOUBLE,
    coding         {{ sql.type('VARCHAR') }},
    min_categories BIGINT
);

DROP TABLE IF EXISTS {{ t.feature_stats }};
CREATE TABLE {{ t.feature_stats }} (
    class   {{ class_type }} NOT NULL,
    feature {{ sql.type('VARCHAR') }} NOT NULL,
    n       BIGINT NOT NULL,   -- documents with the term (occurrences, see term_stats.sql)
    count   DOUBLE NOT NULL,   -- weighted sum of the values (scikit-learn's feature_count_)
    weight  DOUBLE             -- per-feature weight: NULL, the class weight (no missing terms)
);
