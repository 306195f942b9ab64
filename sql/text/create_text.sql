-- The tables a term model adds to model {{ model | lit }}: how its input is read (the
-- analyzer's settings), and for text the vocabulary with document frequencies and idf.
DROP TABLE IF EXISTS {{ t.analyzer }};
DROP TABLE IF EXISTS {{ t.vocabulary }};

CREATE TABLE {{ t.analyzer }} (
    input       VARCHAR NOT NULL,   -- 'text' (a text column) or 'long' (document, feature, value)
    options     VARCHAR NOT NULL,   -- JSON: the analyzer's settings, or the long table's columns
    n_documents BIGINT NOT NULL     -- documents behind the document frequencies and idf
);

CREATE TABLE {{ t.vocabulary }} (
    term       VARCHAR NOT NULL PRIMARY KEY,
    term_index INTEGER NOT NULL,    -- position in sorted order, as CountVectorizer numbers terms
    df         BIGINT NOT NULL,     -- documents that contain the term
    count      DOUBLE NOT NULL,     -- occurrences in the fitted documents
    idf        DOUBLE NOT NULL      -- inverse document frequency (1 when idf is not used)
);
