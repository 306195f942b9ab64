-- Explain {{ source | comment }} with model {{ model | comment }}: each feature's term of
-- each class's joint log-likelihood, per input row.
{# `classes`: per class its label, constant and `entries`, one per feature in the model's
   order: its family's template, that family's parameters `p` and the scoring term; for a
   per-group model also `group_constant` and `group_entries`, whose parameters are columns
   of the row's group (`group_table`, as in score/standalone_score.sql; `matched` is NULL for a
   row no group model scores, which the pooled model scores). A feature's log-likelihood is
   its share of the class constant (the family's `share_of`, 0 for a family without one) plus its term (`term_of`, the
   very expression the family's `jll` sums); `log_prior` is the constant less the shares,
   so log_prior + the sum over features is the joint log-likelihood. `row`: the one input
   row explained (None: all). `top`: the number of features kept per row (None: every row
   x class x feature). `features`: the name and SQL of each feature, in order. `cleaned`:
   numeric features read once per row with NaN as NULL (`alias`), which the terms read.
   `lookups`: the relations of the features of many categories, joined to the rows (their
   terms read them; see compiler.joined_lookups). `params`: the one-row view of the
   parameters (reports/explain_params.sql, `relation`) whose lists are read into
   `columns` (each a `value` and its `alias`) that the constants and terms read as columns
   of `priors`, or none (they are literals). #}
{% from 'families/common.sql' import num %}
{% from 'score/scoring_helpers.sql' import lookup_joins %}
{% from 'reports/explain_terms.sql' import entry_term, entries_prior %}
{% macro class_term(c, i) -%}
{% if group_table %}CASE WHEN {{ group_table.matched }} IS NULL THEN {{ entry_term(c.entries[i]) }} WHEN {{ c.group_constant | lit }} IS NOT NULL THEN {{ entry_term(c.group_entries[i]) }} END{% else %}{{ entry_term(c.entries[i]) }}{% endif %}
{%- endmacro %}
{% macro class_prior(c, position) -%}
{% set pooled = ('__sqlnb_prior_' ~ position) | ident %}
{% if group_table %}CASE WHEN {{ group_table.matched }} IS NULL THEN {{ pooled }} ELSE {{ entries_prior(c.group_constant, c.group_entries) }} END{% else %}{{ pooled }}{% endif %}
{%- endmacro %}
{% macro rows_from() -%}
FROM {{ 'numbered' if row is none else 'chosen' }} AS source
-- the pooled model's log priors, computed once
CROSS JOIN priors
{{ lookup_joins(lookups) }}
{% if group_table %}
-- rows of a group unseen at fit time (or with a NULL group) find no parameters here
LEFT JOIN group_parameters AS __sqlnb_group
    ON {% for parameter, value in group_table.join %}{{ parameter }} = {{ value }}{{ " AND " if not loop.last }}{% endfor %}
{% endif %}
{%- endmacro %}
WITH numbered AS (
    SELECT
        *,
{% for f in cleaned %}
        {{ num(f) }} AS {{ f.alias }},
{% endfor %}
        {{ sql.row_index() }} AS __sqlnb_row
    FROM {{ source }}
{% if row is not none %}
), chosen AS (
    SELECT * FROM numbered WHERE __sqlnb_row = {{ row | lit }}
{% endif %}
{% if params %}
), __sqlnb_parameters AS (
    -- the view's lists read once into a column per class, feature and parameter
    SELECT
        *{% for p in params.columns %},
        {{ p.value }} AS {{ p.alias }}{% endfor %}

    FROM {{ params.relation }} AS __sqlnb_lists
{% endif %}
), priors AS (
    SELECT
{% if params %}
        -- the parameters' row, which the terms read (`priors.<column>`)
        *,
{% endif %}
{% for c in classes %}
        {{ entries_prior(c.constant, c.entries) }} AS {{ ('__sqlnb_prior_' ~ loop.index0) | ident }}{{ "," if not loop.last }}
{% endfor %}
{% if params %}
    FROM __sqlnb_parameters AS priors
{% endif %}
{% if group_table %}
), group_parameters ({{ group_table.columns | join(", ") }}) AS (
    -- one model per group: a row of parameters each (NULL for a class the group never saw)
    VALUES
    {% for values in group_table.rows %}
        ({{ values | join(", ") }}){{ "," if not loop.last }}
    {% endfor %}
{% endif %}
), terms AS (
    -- each class's term of each feature (class position p, feature position f)
    SELECT
        __sqlnb_row,
{% for c in classes %}
{% set p = loop.index0 %}
{% for entry in c.entries %}
        {{ class_term(c, loop.index0) }} AS {{ ('__sqlnb_t_' ~ p ~ '_' ~ loop.index0) | ident }},
{% endfor %}
{% endfor %}
{% for f in features %}
        {{ f.column }} AS {{ ('__sqlnb_x_' ~ loop.index0) | ident }},
{% endfor %}
{% for c in classes %}
        {{ class_prior(c, loop.index0) }} AS {{ ('__sqlnb_class_prior_' ~ loop.index0) | ident }}{{ "," if not loop.last }}
{% endfor %}
    {{ rows_from() }}
{% if not top %}
)
-- one output row per class x feature of each row: parallel lists of the terms' columns
-- unnested together
{% set out = namespace(labels=[], names=[], terms=[], priors=[]) %}
{% for c in classes %}
{% set p = loop.index0 %}
{% for entry in c.entries %}
{% set out.labels = out.labels + [c.label] %}
{% set out.names = out.names + [entry.term.name | lit] %}
{% set out.terms = out.terms + [('__sqlnb_t_' ~ p ~ '_' ~ loop.index0) | ident] %}
{% set out.priors = out.priors + [('__sqlnb_class_prior_' ~ p) | ident] %}
{% endfor %}
{% endfor %}
SELECT
    __sqlnb_row AS row_number,
    {{ sql.unpivot([('class', out.labels), ('feature', out.names), ('log_likelihood', out.terms), ('log_prior', out.priors)]) }}
FROM terms
{% else %}
), joint AS (
    SELECT
        *,
{% for c in classes %}
{% set p = loop.index0 %}
        {{ ('__sqlnb_class_prior_' ~ p) | ident }}{% for entry in c.entries %} + {{ ('__sqlnb_t_' ~ p ~ '_' ~ loop.index0) | ident }}{% endfor %} AS {{ ('__sqlnb_jll_' ~ p) | ident }}{{ "," if not loop.last }}
{% endfor %}
    FROM terms
), predicted AS (
    -- the predicted class (ties to the first class in sorted order)
    SELECT
        *,
        CASE
{% for c in classes %}
            WHEN {{ ('__sqlnb_jll_' ~ loop.index0) | ident }} = greatest({% for d in classes %}{{ ('__sqlnb_jll_' ~ loop.index0) | ident }}{{ ", " if not loop.last }}{% endfor %}) THEN {{ loop.index0 }}
{% endfor %}
        END AS __sqlnb_first
    FROM joint
), paired AS (
    -- the runner-up: the best of the other classes (NULL with one class)
    SELECT
        *,
        CASE
{% for c in classes %}
            WHEN __sqlnb_first <> {{ loop.index0 }} AND {{ ('__sqlnb_jll_' ~ loop.index0) | ident }} = greatest({% for d in classes %}CASE WHEN __sqlnb_first <> {{ loop.index0 }} THEN {{ ('__sqlnb_jll_' ~ loop.index0) | ident }} END{{ ", " if not loop.last }}{% endfor %}) THEN {{ loop.index0 }}
{% endfor %}
        END AS __sqlnb_second
    FROM predicted
), differences AS (
    -- each feature's term in the predicted class less its term in the runner-up
    SELECT
        *,
{% for f in features %}
{% set i = loop.index0 %}
        CASE __sqlnb_first{% for c in classes %} WHEN {{ loop.index0 }} THEN {{ ('__sqlnb_t_' ~ loop.index0 ~ '_' ~ i) | ident }}{% endfor %} END
            - coalesce(CASE __sqlnb_second{% for c in classes %} WHEN {{ loop.index0 }} THEN {{ ('__sqlnb_t_' ~ loop.index0 ~ '_' ~ i) | ident }}{% endfor %} END, 0) AS {{ ('__sqlnb_d_1_' ~ i) | ident }}{{ "," if not loop.last }}
{% endfor %}
    FROM paired
{#- The k largest differences by selection, one rank after the other (no sort of the
    row's list): rank r's contribution is the largest difference left, its feature the
    first that has it (ties to the first feature), which the next rank leaves out. #}
{% for r in range(1, top + 1) %}
{% set d = '__sqlnb_d_' ~ r ~ '_' %}
), best_{{ r }} AS (
    SELECT *, greatest({% for f in features %}{{ (d ~ loop.index0) | ident }}{{ ", " if not loop.last }}{% endfor %}) AS {{ ('__sqlnb_best_' ~ r) | ident }}
    FROM {{ 'differences' if r == 1 else 'left_' ~ (r - 1) }}
), picked_{{ r }} AS (
    SELECT
        *,
        CASE{% for f in features %} WHEN {{ (d ~ loop.index0) | ident }} = {{ ('__sqlnb_best_' ~ r) | ident }} THEN {{ loop.index0 }}{% endfor %} END AS {{ ('__sqlnb_pick_' ~ r) | ident }}
    FROM best_{{ r }}
{% if not loop.last %}
), left_{{ r }} AS (
    SELECT
        *,
{% for f in features %}
        CASE WHEN {{ ('__sqlnb_pick_' ~ r) | ident }} = {{ loop.index0 }} THEN NULL ELSE {{ (d ~ loop.index0) | ident }} END AS {{ ('__sqlnb_d_' ~ (r + 1) ~ '_' ~ loop.index0) | ident }}{{ "," if not loop.last }}
{% endfor %}
    FROM picked_{{ r }}
{% endif %}
{% endfor %}
), kept AS (
    -- the kept features' names and values (as text), before the rows are unnested
    SELECT
        __sqlnb_row,
        CASE __sqlnb_first{% for c in classes %} WHEN {{ loop.index0 }} THEN {{ c.label }}{% endfor %} END AS prediction,
        CASE __sqlnb_second{% for c in classes %} WHEN {{ loop.index0 }} THEN {{ c.label }}{% endfor %} END AS runner_up,
{% for r in range(1, top + 1) %}
{% set pick = ('__sqlnb_pick_' ~ r) | ident %}
        CASE {{ pick }}{% for f in features %} WHEN {{ loop.index0 }} THEN {{ f.name | lit }}{% endfor %} END AS {{ ('__sqlnb_feature_' ~ r) | ident }},
        CASE {{ pick }}{% for f in features %} WHEN {{ loop.index0 }} THEN {{ sql.as_text(('__sqlnb_x_' ~ loop.index0) | ident) }}{% endfor %} END AS {{ ('__sqlnb_value_' ~ r) | ident }},
        {{ ('__sqlnb_best_' ~ r) | ident }}{{ "," if not loop.last }}
{% endfor %}
    FROM picked_{{ top }}
)
-- one output row per rank: parallel lists of k columns unnested together
{% set out = namespace(ranks=[], names=[], values=[], contributions=[]) %}
{% for r in range(1, top + 1) %}
{% set out.ranks = out.ranks + [r | string] %}
{% set out.names = out.names + [('__sqlnb_feature_' ~ r) | ident] %}
{% set out.values = out.values + [('__sqlnb_value_' ~ r) | ident] %}
{% set out.contributions = out.contributions + [('__sqlnb_best_' ~ r) | ident] %}
{% endfor %}
SELECT
    __sqlnb_row AS row_number,
    {{ sql.unpivot([('rank', out.ranks), ('feature', out.names), ('value', out.values), ('contribution', out.contributions)]) }},
    prediction,
    runner_up
FROM kept
ORDER BY row_number, rank
{% endif %}
