{#- Spark's counterpart of score/scoring_macros.sql: SQL functions (CREATE FUNCTION ... RETURN)
    in the model's database, which Spark inlines into the calling plan. The others call
    the joint log-likelihood function, and bind its array once through a lambda. -#}
{% import family_template as family %}
{% from 'score/scoring_helpers.sql' import chunked %}
{% from 'reports/explain_terms.sql' import entry_term, entries_prior %}
{% set row_type %}STRUCT<{% for f in fields %}{{ f.name }}: {{ f.type }}{{ ", " if not loop.last }}{% endfor %}>{% endset %}
{#- `group_table` (a per-group model's): each group's parameters as one STRUCT, picked by a
    CASE on the row's group columns (`branches`); `text` (a text model's): the analyzer's
    settings, the row's text column and the vocabularies as one JSON literal
    (`parameters`), a per-group text model's rows routed to their group's (`routes`). -#}
{% set text = text | default(none) %}
{% set group_table = group_table | default(none) %}
{% if text %}
{% import 'text/analyzer.sql' as analyzer %}
{% from 'families/counts.sql' import value %}
{% endif %}
-- Scoring functions of model {{ model_comment | comment }} ({{ family_name | comment }} naive Bayes, Spark SQL).
-- Each takes the row's {{ "text column" if text else "features" }}{{ " and group columns" if group_table or (text and text.routes) }} as one STRUCT, matched by field name:
--   SELECT churn_predict(struct(age, plan, spend)) FROM new_customers
-- and embeds the parameters the model had when sqlnb (re)created it after a write.

CREATE OR REPLACE FUNCTION {{ m.joint }}({{ row }} {{ row_type }})
RETURNS ARRAY<DOUBLE>
{% if text %}
-- the row's model (a per-group model's: its group's, the pooled one for a group no fit
-- saw or a NULL group column), then its document tokenised as the fit tokenised the
-- documents; the terms the model knows are weighted as there (the vocabulary's idf, the
-- document's norm) and multiplied by each class's coefficient
RETURN transform(array(from_json({{ text.parameters | lit }},
        'ARRAY<STRUCT<k: ARRAY<DOUBLE>, v: MAP<STRING, STRUCT<i: DOUBLE, c: ARRAY<DOUBLE>>>>>')[
{% if text.routes %}
        CASE
{% for r in text.routes %}
            WHEN {{ r.when | join(" AND ") }} THEN {{ r.position }}
{% endfor %}
            ELSE 0 END
{% else %}
        0
{% endif %}
    ]), __sqlnb_m ->
    -- the document's distinct terms with their counts, those of the vocabulary kept
    transform(array(filter(transform(
        {{ sql.histogram(analyzer.terms('coalesce(' ~ analyzer.tokens(text.column, text.a) ~ ', CAST(array() AS ARRAY<STRING>))', text.a)) }},
        __sqlnb_c -> named_struct('n', __sqlnb_c.value, 'p', try_element_at(__sqlnb_m.v, __sqlnb_c.key))),
        __sqlnb_c -> __sqlnb_c.p IS NOT NULL)), __sqlnb_w ->
    transform(array(transform(__sqlnb_w, __sqlnb_e ->
        named_struct('x', {{ analyzer.tf('__sqlnb_e.n', text.a) }} * __sqlnb_e.p.i, 'c', __sqlnb_e.p.c))), __sqlnb_v ->
    -- the document's norm over its known terms
{% if text.a.norm == 'l2' %}
    transform(array(sqrt(aggregate(__sqlnb_v, 0D, (__sqlnb_a, __sqlnb_e) -> __sqlnb_a + __sqlnb_e.x * __sqlnb_e.x))), __sqlnb_norm ->
{% elif text.a.norm == 'l1' %}
    transform(array(aggregate(__sqlnb_v, 0D, (__sqlnb_a, __sqlnb_e) -> __sqlnb_a + abs(__sqlnb_e.x))), __sqlnb_norm ->
{% else %}
    transform(array(1D), __sqlnb_norm ->
{% endif %}
    array(
{% for c in classes %}
        -- class {{ c.comment | comment }}: its constant in the row's model (-inf where the
        -- group never saw the class) and the terms' parts
        __sqlnb_m.k[{{ loop.index0 }}] + aggregate(__sqlnb_v, 0D, (__sqlnb_a, __sqlnb_e) ->
            __sqlnb_a + coalesce({{ value({'column': '__sqlnb_e.x' if text.a.norm not in ('l1', 'l2') else '__sqlnb_e.x / __sqlnb_norm'}, text.binarize) }} * __sqlnb_e.c[{{ loop.index0 }}], 0D)){{ "," if not loop.last }}
{% endfor %}
    ))[0])[0])[0])[0];
{% elif group_table %}
-- the parameters of the row's group, as one STRUCT (NULL for a group no fit saw, or a
-- NULL group column: the pooled model's then)
RETURN transform(array(CASE
{% for b in group_table.branches %}
        WHEN {{ b.when | join(" AND ") }} THEN named_struct({% for name, v in b.fields %}{{ name | lit }}, {{ v }}{{ ", " if not loop.last }}{% endfor %})
{% endfor %}
    END), {{ group_table.alias | ident }} -> CASE WHEN {{ group_table.alias | ident }} IS NULL THEN array(
{% for c in classes %}
    -- class {{ c.comment | comment }}: the pooled model
    {{ chunked(family, c, p) | trim }}{{ "," if not loop.last }}
{% endfor %}
    ) ELSE array(
{% for c in classes %}
    -- class {{ c.comment | comment }}: the group's model (NULL for a class it never saw)
    {{ chunked(family, group_table.models[c.index], p) | trim }}{{ "," if not loop.last }}
{% endfor %}
    ) END)[0];
{% else %}
RETURN array(
{% for c in classes %}
    -- class {{ c.comment | comment }}: log prior + log-likelihood of each feature
    {{ chunked(family, c, p) | trim }}{{ "," if not loop.last }}
{% endfor %}
);
{% endif %}

{#- explain's rows of the row, one per class and feature (class order, then the model's
    feature order), from the same family terms as reports/explain.sql: parameters inlined,
    so it is re-created with the joint function. Each class's log prior is computed once
    (bound through a lambda). None (`explained` empty): a model explain's rows need more
    than a row's fields for (per-group), whose function an earlier write may have left. -#}
{% if explained %}
CREATE OR REPLACE FUNCTION {{ m.explain }}({{ row }} {{ row_type }})
RETURNS ARRAY<STRUCT<{{ 'class' | ident }}: {{ label_type }}, feature: STRING, log_likelihood: DOUBLE, log_prior: DOUBLE>>
RETURN transform(array(array(
{% for c in explained %}
    -- class {{ c.comment | comment }}: its log prior
    CAST({{ entries_prior(c.constant, c.entries) }} AS DOUBLE){{ "," if not loop.last }}
{% endfor %}
    )), log_priors -> array(
{% for c in explained %}
{% set position = loop.index0 %}
{% set last_class = loop.last %}
{% for entry in c.entries %}
        named_struct('class', {{ c.label }}, 'feature', {{ entry.term.name | lit }},
            'log_likelihood', CAST({{ entry_term(entry) }} AS DOUBLE),
            'log_prior', log_priors[{{ position }}]){{ "," if not (last_class and loop.last) }}
{% endfor %}
{% endfor %}
    ))[0];
{% else %}
DROP FUNCTION IF EXISTS {{ m.explain }};
{% endif %}

{% if not joint_only | default(false) %}
{#- (the others read no parameter: unchanged while the classes and features are) -#}
CREATE OR REPLACE FUNCTION {{ m.predict }}({{ row }} {{ row_type }})
RETURNS {{ label_type }}
-- the class with the largest joint log-likelihood; ties go to the first class in sorted order
RETURN transform(array({{ m.joint }}({{ row }})), jll ->
    element_at(array({% for c in classes %}{{ c.label }}{{ ", " if not loop.last }}{% endfor %}),
               CAST(array_position(jll, array_max(jll)) AS INT)))[0];

{% if key_clash %}
-- class labels that differ only by case cannot both be fields of a STRUCT: these functions
-- explain that instead
CREATE OR REPLACE FUNCTION {{ m.predict_log_proba }}({{ row }} {{ row_type }})
RETURNS STRING
RETURN raise_error({{ key_clash | lit }});

CREATE OR REPLACE FUNCTION {{ m.predict_proba }}({{ row }} {{ row_type }})
RETURNS STRING
RETURN raise_error({{ key_clash | lit }});
{% else %}
{% set proba_type %}STRUCT<{% for c in classes %}{{ c.key | ident }}: DOUBLE{{ ", " if not loop.last }}{% endfor %}>{% endset %}
{% for role, transform in (('predict_log_proba', ''), ('predict_proba', 'exp')) %}
CREATE OR REPLACE FUNCTION {{ m[role] }}({{ row }} {{ row_type }})
RETURNS {{ proba_type }}
-- joint log-likelihoods minus their log-sum-exp (taken around the largest one)
{% if grouped_model %}
-- (a class the row's group never saw has no term: probability 0)
{% endif %}
RETURN transform(array({{ m.joint }}({{ row }})), jll ->
    transform(array(array_max(jll) + ln(aggregate(jll, 0D, (acc, x) -> acc + {% if grouped_model %}coalesce(exp(x - array_max(jll)), 0D){% else %}exp(x - array_max(jll)){% endif %}))), lse ->
        named_struct(
        {% for c in classes %}
            {{ c.key | lit }}, {% if grouped_model and transform %}coalesce({{ transform }}(jll[{{ loop.index0 }}] - lse), 0D){% else %}{{ transform }}(jll[{{ loop.index0 }}] - lse){% endif %}{{ "," if not loop.last }}
        {% endfor %}
        ))[0])[0];

{% endfor %}
{% endif %}
{% endif %}
