-- Record the model's features, in order, with their per-feature hyperparameters
-- (`create`: a staged write's new features table, created holding them, typed as
-- fit/create_model.sql types it).
INSERT INTO "tiny_features" (feature_index, feature, type, alpha, coding, min_categories)
VALUES
    (0, 'x0', 'DOUBLE', NULL, NULL, NULL),
    (1, 'x1', 'DOUBLE', NULL, NULL, NULL),
    (2, 'x2', 'DOUBLE', NULL, NULL, NULL),
    (3, 'x3', 'DOUBLE', NULL, NULL, NULL),
    (4, 'x4', 'DOUBLE', NULL, NULL, NULL),
    (5, 'x5', 'DOUBLE', NULL, NULL, NULL),
    (6, 'x6', 'DOUBLE', NULL, NULL, NULL),
    (7, 'x7', 'DOUBLE', NULL, NULL, NULL),
    (8, 'x8', 'DOUBLE', NULL, NULL, NULL),
    (9, 'x9', 'DOUBLE', NULL, NULL, NULL),
    (10, 'x10', 'DOUBLE', NULL, NULL, NULL),
    (11, 'x11', 'DOUBLE', NULL, NULL, NULL),
    (12, 'x12', 'DOUBLE', NULL, NULL, NULL),
    (13, 'x13', 'DOUBLE', NULL, NULL, NULL),
    (14, 'x14', 'DOUBLE', NULL, NULL, NULL),
    (15, 'x15', 'DOUBLE', NULL, NULL, NULL),
    (16, 'x16', 'DOUBLE', NULL, NULL, NULL),
    (17, 'x17', 'DOUBLE', NULL, NULL, NULL),
    (18, 'x18', 'DOUBLE', NULL, NULL, NULL),
    (19, 'x19', 'DOUBLE', NULL, NULL, NULL)
;
