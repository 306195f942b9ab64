-- Scoring macros of model {{ model_comment | comment }} ({{ family_name | comment }} naive Bayes, DuckDB only).
-- Each takes a row (the table alias in `SELECT churn_predict(t) FROM customers t`) and
-- embeds the parameters the model had when sqlnb (re)created it at the end of a fit.
{# `joint_only`: only the joint log-likelihood macro (the others call it by name: a write
    that changes no class, feature or hyperparameter re-creates it alone). #}
{% import family_template as family %}
{% from 'score/scoring_helpers.sql' import chunked, lookup_joins %}
{% import 'score/scoring_helpers.sql' as step %}
{% import 'score/array_terms.sql' as terms %}
{#- The weight matrix's joint log-likelihoods of one row whose `features` are read by their
    `column` (a column of the scored relation), or given as the list `values` (a name: a
    lambda's variable). A row that may miss a value, without a binarize threshold, is read
    by `matrix_joint_flat`'s lambdas straight from its list. -#}
{% macro matrix_row_joint(features, values=none) -%}
{% if missing != 'error' and binarize is none %}
{% if values is none -%}
list_transform([{{ terms.row_values(features, false, none) }}], lambda __sqlnb_v: {{ terms.matrix_joint_flat('__sqlnb_v', matrix.weights, matrix.shift, matrix.kind) }})[1]
{%- else -%}
{{ terms.matrix_joint_flat(values, matrix.weights, matrix.shift, matrix.kind) }}
{%- endif %}
{% else %}
{% set names %}[{% for f in features %}{{ f.name | lit }}{{ ", " if not loop.last }}{% endfor %}]{% endset %}
{% set v = '__sqlnb_v' %}
list_transform([{{ terms.row_values(features, any_float, binarize, values) }}], lambda {{ v }}:
{% if missing == 'error' %}
        CASE WHEN list_contains(list_transform({{ v }}, lambda v: v IS NULL), true)
        THEN error('missing value (NULL or NaN) in feature ' || {{ names }}[list_position(list_transform({{ v }}, lambda v: v IS NULL), true)])
        ELSE {{ terms.matrix_joint(v, matrix.weights, matrix.shift, matrix.kind, false) }} END
{% else %}
        {{ terms.matrix_joint(v, matrix.weights, matrix.shift, matrix.kind, true) }}
{% endif %}
    )[1]
{% endif %}
{%- endmacro %}
{% if text is defined and text %}
{% import 'text/analyzer.sql' as analyzer %}
{% import 'text/group_models.sql' as gm %}
{% from 'families/counts.sql' import value %}
{% set text_groups = text.groups | default(none) %}
{% set models = [{'index': 0, 't': t, 'class_map': none}] + (text_groups or []) %}
{% endif %}
{% if text is defined and text and text_groups is not none %}
CREATE OR REPLACE MACRO {{ m.joint }}(r) AS (
    -- the row goes to its group's text model (its own vocabulary, idf and coefficients),
    -- a row of a group no fit saw (or of a NULL group) to the pooled model 0, as predict
    -- routes it; its document is tokenised as the fit tokenised its documents, the terms
    -- its model knows weighted as there and multiplied by each class's coefficient, read
    -- from the models' tables at each call (the row is named once)
    WITH route AS (
        SELECT
            coalesce(__sqlnb_group.__sqlnb_model, 0) AS model,
            {{ analyzer.tokens(text.column, text.a) }} AS tokens
        FROM (SELECT r AS {{ row | ident }}) AS __sqlnb_input
        LEFT JOIN (VALUES
        {% for g in text_groups %}
            ({{ g.index | lit }}{% for v in g["values"] %}, {{ v }}{% endfor %}){{ "," if not loop.last }}
        {% endfor %}
        ) AS __sqlnb_group (__sqlnb_model{% for f in text.group_fields %}, __sqlnb_g{{ loop.index0 }}{% endfor %})
            ON {% for f in text.group_fields %}{{ f }} = __sqlnb_group.__sqlnb_g{{ loop.index0 }}{{ " AND " if not loop.last }}{% endfor %}

    ), terms AS (
        SELECT k.class_index, {{ value({'column': 'w.x'}, text.binarize) }} * k.coef AS term_value
        FROM (
            SELECT
                d.model,
                v.term,
                {{ analyzer.normalised(analyzer.tf('d.cell.value', text.a) ~ ' * v.idf', none, text.a) }} AS x
            FROM (
                SELECT model, unnest(map_entries(list_aggr({{ analyzer.terms('tokens', text.a) }}, 'histogram'))) AS cell
                FROM route
            ) AS d
            JOIN (
{{ gm.vocabularies(models) }}
            ) AS v ON v.model = d.model AND v.term = d.cell.key
        ) AS w
        JOIN (
{{ gm.coefficients(models, family) }}
        ) AS k ON k.model = w.model AND k.feature = w.term
    )
    SELECT [
    {% for c in classes %}
        -- class {{ c.comment | comment }}: its constant in the row's model (-inf where the
        -- group never saw the class) and the terms' parts
        any_value(k.__sqlnb_k{{ loop.index0 }}) + coalesce(sum(CASE WHEN t.class_index = {{ c.index | lit }} THEN t.term_value END), 0){{ "," if not loop.last }}
    {% endfor %}
    ]
    FROM route
    JOIN (
{{ gm.constants(classes, text_groups) }}
    ) AS k ON k.model = route.model
    LEFT JOIN terms AS t ON TRUE
);
{% elif text is defined and text %}
CREATE OR REPLACE MACRO {{ m.joint }}(r) AS (
    -- the row's document is tokenised as the fit tokenised its documents; the terms the
    -- model knows are weighted as there (the vocabulary's idf, the document's norm) and
    -- multiplied by each class's coefficient, read from the parameter views at each call
    SELECT [
    {% for c in classes %}
        -- class {{ c.comment | comment }}
        {{ c.constant | lit }} + coalesce(sum({{ value({'column': 'x'}, text.binarize) }} * coefs[{{ loop.index }}]), 0){{ "," if not loop.last }}
    {% endfor %}
    ]
    FROM (
        SELECT
            {{ analyzer.normalised(analyzer.tf('d.cell.value', text.a) ~ ' * v.idf', none, text.a) }} AS x,
            k.coefs
        FROM (
            SELECT unnest(map_entries(list_aggr({{ analyzer.terms('tokens', text.a) }}, 'histogram'))) AS cell
            FROM (SELECT {{ analyzer.tokens(text.column, text.a) }} AS tokens)
        ) AS d
        JOIN {{ t.vocabulary }} AS v ON v.term = d.cell.key
        JOIN (
            SELECT feature, list(coef ORDER BY class_index) AS coefs
            FROM (
                {{ family.read_params(t) | trim }}
            )
            GROUP BY feature
        ) AS k ON k.feature = v.term
    )
);
{% elif group_table %}
CREATE OR REPLACE MACRO {{ m.joint }}(r) AS (
    -- (the row is named once: DuckDB copies a macro argument at every use)
    SELECT
        CASE WHEN {{ group_table.matched }} IS NULL THEN [
        -- a group unseen at fit time (or NULL): the pooled model
        {% for c in classes %}
            -- class {{ c.comment | comment }}
            {{ chunked(family, c, p) | trim }}{{ "," if not loop.last }}
        {% endfor %}
        ] ELSE [
        -- the model of the row's group (NULL for a class the group never saw)
        {% for c in classes %}
            -- class {{ c.comment | comment }}
            {{ chunked(family, group_table.models[c.index], p) | trim }}{{ "," if not loop.last }}
        {% endfor %}
        ] END
    FROM (SELECT r AS {{ row | ident }}) AS __sqlnb_input
    -- one row of parameters per group, joined on the group columns
    LEFT JOIN (VALUES
    {% for values in group_table.rows %}
        ({{ values | join(", ") }}){{ "," if not loop.last }}
    {% endfor %}
    ) AS __sqlnb_group ({{ group_table.columns | join(", ") }})
        ON {% for parameter, value in group_table.join %}{{ parameter }} = {{ value }}{{ " AND " if not loop.last }}{% endfor %}

);
{% elif matrix is defined and matrix %}
CREATE OR REPLACE MACRO {{ m.joint }}(r) AS
    -- the fitted parameters are written here, one row of weights per class (every write
    -- of the model re-creates the macro in its transaction): each class's joint
    -- log-likelihood is one inner product with the row's list, short to plan at each call;
    -- the row's features are read by casts, not by a lambda over the row, and their list
    -- is named once, for the check that the row has every feature and for the scoring
    list_transform([{{ terms.row_cast('r', features) }}], lambda __sqlnb_r:
        CASE WHEN {{ terms.row_checked('r', features, row_keys, '__sqlnb_r') }}
        THEN {{ matrix_row_joint(features, '__sqlnb_r') }}
        ELSE error({{ lacks_feature | lit }}) END)[1];
{% elif params_table is defined and params_table %}
{% set c = {'constant': '__sqlnb_c.constant', 'full_constant': '__sqlnb_c.full_constant',
            'scale': '__sqlnb_c.scale', 'target': '__sqlnb_c.target',
            'weights': '__sqlnb_c.weights', 'fallback': '__sqlnb_c.fallback'} %}
{% set names %}[{% for f in features %}{{ f.name | lit }}{{ ", " if not loop.last }}{% endfor %}]{% endset %}
CREATE OR REPLACE MACRO {{ m.joint }}(r) AS
    -- the parameters are data: one row per class of the view {{ params_table_name | comment }},
    -- derived from the statistics at every call (so any update shows at once); the row is
    -- named once, its features become a list (read by casts, not by a lambda over the row)
    CASE WHEN {{ terms.row_checked('r', features, row_keys) }} THEN list_transform([{
        'v': {{ terms.row_values(features, any_float, binarize, terms.row_cast('r', features)) }},
        'p': (SELECT list(__sqlnb_c ORDER BY __sqlnb_c.class_index) FROM {{ t.scoring_params }} AS __sqlnb_c)
    }], lambda __sqlnb_a: list_transform([{
{% if kind == 'distance' %}
        -- centred on the model's shift (the same in every class row)
        'x': list_transform(__sqlnb_a.v, lambda v, i: v - __sqlnb_a.p[1].shift[i]),
{% else %}
        'x': __sqlnb_a.v,
{% endif %}
{% if kind == 'counts' %}
        'lgamma': list_sum(list_transform(__sqlnb_a.v, lambda v: lgamma(v + 1))),
{% endif %}
        'complete': list_count(__sqlnb_a.v) = {{ features | length }}
    }], lambda __sqlnb_s: list_transform(__sqlnb_a.p, lambda __sqlnb_c:
        CASE WHEN __sqlnb_s.complete THEN {{ terms.raw(c, kind, '__sqlnb_s.x', '__sqlnb_s.lgamma') }}
        ELSE {{ terms.careful(c, kind, '__sqlnb_s.x', missing, names) }} END
    ))[1])[1]
    ELSE error({{ lacks_feature | lit }}) END;
{% elif lookups is defined and lookups %}
CREATE OR REPLACE MACRO {{ m.joint }}(r) AS (
    -- the row is named once; the categorical features with many categories find their
    -- coefficients by a join with a relation of them (one row per category)
    SELECT [
    {% for c in classes %}
        -- class {{ c.comment | comment }}: log prior + log-likelihood of each feature
        {{ chunked(family, c, p) | trim }}{{ "," if not loop.last }}
    {% endfor %}
    ]
    FROM (SELECT r AS {{ row | ident }}) AS __sqlnb_input
    {{ lookup_joins(lookups) | trim }}
);
{% elif row_once %}
CREATE OR REPLACE MACRO {{ m.joint }}(r) AS
    -- (a wide model names the row once: DuckDB copies a macro argument at every use)
    list_transform([r], lambda {{ row | ident }}: [
    {% for c in classes %}
        -- class {{ c.comment | comment }}: log prior + log-likelihood of each feature
        {{ chunked(family, c, p) | trim }}{{ "," if not loop.last }}
    {% endfor %}
    ])[1];
{% else %}
CREATE OR REPLACE MACRO {{ m.joint }}(r) AS [
{% for c in classes %}
    -- class {{ c.comment | comment }}: log prior + log-likelihood of each feature
    {{ chunked(family, c, p) | trim }}{{ "," if not loop.last }}
{% endfor %}
];
{% endif %}

{% if not joint_only %}
CREATE OR REPLACE MACRO {{ m.predict }}(r) AS
    -- the class with the largest joint log-likelihood; ties go to the first class in sorted order
    list_transform([{{ m.joint }}(r)], lambda jll:
        {{ step.list_argmax(classes, 'jll') }}
    )[1];

{% if key_clash %}
-- class labels that differ only by case cannot both be fields of a STRUCT: these macros
-- explain that instead of failing to bind
CREATE OR REPLACE MACRO {{ m.predict_log_proba }}(r) AS error({{ key_clash | lit }});

CREATE OR REPLACE MACRO {{ m.predict_proba }}(r) AS error({{ key_clash | lit }});

{% else %}
CREATE OR REPLACE MACRO {{ m.predict_log_proba }}(r) AS
    -- joint log-likelihoods minus their log-sum-exp (taken around the largest one)
    list_transform([{{ m.joint }}(r)], lambda jll:
        list_transform([{{ step.list_lse('jll') }}], lambda lse: {
        {% for c in classes %}
            {{ c.key | lit }}: jll[{{ loop.index }}] - lse{{ "," if not loop.last }}
        {% endfor %}
        })[1]
    )[1];

CREATE OR REPLACE MACRO {{ m.predict_proba }}(r) AS
    list_transform([{{ m.joint }}(r)], lambda jll:
        list_transform([{{ step.list_lse('jll') }}], lambda lse: {
        {% for c in classes %}
            {{ c.key | lit }}: {% if grouped_model %}coalesce(exp(jll[{{ loop.index }}] - lse), 0){% else %}exp(jll[{{ loop.index }}] - lse){% endif %}{{ "," if not loop.last }}
        {% endfor %}
        })[1]
    )[1];
{% endif %}

-- Whole-table scoring: SELECT * FROM churn_score('customers') (a table, view or file name).
{% if text is defined and text and text_groups is not none %}
-- (a per-group text model's documents are scored together, as predict scores them: each
-- routed to its model, one join of their terms with every model's coefficients)
CREATE OR REPLACE MACRO {{ m.score }}(relation) AS TABLE
    WITH documents AS (
        SELECT *, row_number() OVER () AS __sqlnb_doc FROM query_table(relation)
    ), routes AS (
{{ gm.routes('documents', text_groups, text.group_columns) }}
    ), cells AS (
        {{ analyzer.document_terms('documents', '__sqlnb_doc', text.source_column, text.a) }}
    ), sums AS (
        SELECT
            w.doc,
            [
        {% for c in classes %}
                sum(CASE WHEN k.class_index = {{ c.index | lit }} THEN {{ value({'column': 'w.x'}, text.binarize) }} * k.coef END){{ "," if not loop.last }}
        {% endfor %}
            ] AS sums
        FROM (
            SELECT
                c.doc,
                r.model,
                c.term,
                {{ analyzer.normalised(analyzer.tf('c.count', text.a) ~ ' * v.idf', 'c.doc', text.a) }} AS x
            FROM cells AS c
            JOIN routes AS r ON r.doc = c.doc
            JOIN (
{{ gm.vocabularies(models) }}
            ) AS v ON v.model = r.model AND v.term = c.term
        ) AS w
        JOIN (
{{ gm.coefficients(models, family) }}
        ) AS k ON k.model = w.model AND k.feature = w.term
        GROUP BY w.doc
    ), joint AS (
        SELECT
            d.*,
            [
        {% for c in classes %}
                k.__sqlnb_k{{ loop.index0 }} + coalesce(s.sums[{{ loop.index }}], 0){{ "," if not loop.last }}
        {% endfor %}
            ] AS __sqlnb_jll
        FROM documents AS d
        JOIN routes AS r ON r.doc = d.__sqlnb_doc
        JOIN (
{{ gm.constants(classes, text_groups) }}
        ) AS k ON k.model = r.model
        LEFT JOIN sums AS s ON s.doc = d.__sqlnb_doc
    )
    SELECT
        * EXCLUDE (__sqlnb_doc, __sqlnb_jll),
        -- the class with the largest joint log-likelihood, as <name>_predict chooses it
        {{ step.list_argmax(classes, '__sqlnb_jll') }} AS prediction
    FROM joint
    ORDER BY __sqlnb_doc;
{% elif text is defined and text %}
-- (a text model's documents are scored together, as predict scores them: one join of
-- their terms with the coefficients instead of a subquery per row)
CREATE OR REPLACE MACRO {{ m.score }}(relation) AS TABLE
    WITH documents AS (
        SELECT *, row_number() OVER () AS __sqlnb_doc FROM query_table(relation)
    ), cells AS (
        {{ analyzer.document_terms('documents', '__sqlnb_doc', text.source_column, text.a) }}
    ), sums AS (
        SELECT
            doc,
            [
        {% for c in classes %}
                sum({{ value({'column': 'x'}, text.binarize) }} * coefs[{{ loop.index }}]){{ "," if not loop.last }}
        {% endfor %}
            ] AS sums
        FROM (
            SELECT
                c.doc,
                {{ analyzer.normalised(analyzer.tf('c.count', text.a) ~ ' * v.idf', 'c.doc', text.a) }} AS x,
                k.coefs
            FROM cells AS c
            JOIN {{ t.vocabulary }} AS v USING (term)
            JOIN (
                SELECT feature, list(coef ORDER BY class_index) AS coefs
                FROM (
                    {{ family.read_params(t) | trim }}
                )
                GROUP BY feature
            ) AS k ON k.feature = v.term
        )
        GROUP BY doc
    ), joint AS (
        SELECT
            d.*,
            [
        {% for c in classes %}
                {{ c.constant | lit }} + coalesce(s.sums[{{ loop.index }}], 0){{ "," if not loop.last }}
        {% endfor %}
            ] AS __sqlnb_jll
        FROM documents AS d
        LEFT JOIN sums AS s ON s.doc = d.__sqlnb_doc
    )
    SELECT
        * EXCLUDE (__sqlnb_doc, __sqlnb_jll),
        -- the class with the largest joint log-likelihood, as <name>_predict chooses it
        {{ step.list_argmax(classes, '__sqlnb_jll') }} AS prediction
    FROM joint
    ORDER BY __sqlnb_doc;
{% elif matrix is defined and matrix %}
-- (the weight matrix over the relation's columns, with no row passed to a macro: about what
-- the same statement costs written out, half a call of <name>_predict on one row)
{% set jll = '__sqlnb_jll' %}
CREATE OR REPLACE MACRO {{ m.score }}(relation) AS TABLE
    {{ step.list_statement('list_transform([' ~ matrix_row_joint(table_features) ~ '], lambda ' ~ jll ~ ': ' ~ step.list_argmax(classes, jll) ~ ')[1]', 'query_table(relation)', true, classes, 'predict', jll, 'prediction') }};
{% else %}
CREATE OR REPLACE MACRO {{ m.score }}(relation) AS TABLE
    SELECT *, {{ m.predict }}(__sqlnb_row) AS prediction
    FROM query_table(relation) AS __sqlnb_row;
{% endif %}
{% endif %}
