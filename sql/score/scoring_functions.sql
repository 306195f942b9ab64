{#- Spark's counterpart of score/scoring_macros.sql: SQL functions (CREATE FUNCTION ... RETURN)
    in the model's database, which Spark inlines into the calling plan. The others call
    the joint log-likelihood function, and bind its array once through a lambda. -#}
{% import family_template as family %}
{% from 'score/scoring_helpers.sql' import chunked %}
{% from 'reports/explain_terms.sql' import entry_term, entries_prior %}
{% set row_type %}STRUCT<{% for f in fields %}{{ f.name }}: {{ f.type }}{{ ", " if not loop.last }}{% endfor %}>{% endset %}
-- Scoring functions of model {{ model_comment | comment }} ({{ family_name | comment }} naive Bayes, Spark SQL).
-- Each takes the row's features as one STRUCT, matched by field name:
--   SELECT churn_predict(struct(age, plan, spend)) FROM new_customers
-- and embeds the parameters the model had when sqlnb (re)created it after a write.

CREATE OR REPLACE FUNCTION {{ m.joint }}({{ row }} {{ row_type }})
RETURNS ARRAY<DOUBLE>
RETURN array(
{% for c in classes %}
    -- class {{ c.comment | comment }}: log prior + log-likelihood of each feature
    {{ chunked(family, c, p) | trim }}{{ "," if not loop.last }}
{% endfor %}
);

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
RETURN transform(array({{ m.joint }}({{ row }})), jll ->
    transform(array(array_max(jll) + ln(aggregate(jll, 0D, (acc, x) -> acc + exp(x - array_max(jll))))), lse ->
        named_struct(
        {% for c in classes %}
            {{ c.key | lit }}, {{ transform }}(jll[{{ loop.index0 }}] - lse){{ "," if not loop.last }}
        {% endfor %}
        ))[0])[0];

{% endfor %}
{% endif %}
{% endif %}
