-- Explain {{ source | comment }} with model {{ model | comment }}: each feature's term of
-- each class's joint log-likelihood, per input row.
{# `classes`: per class its label, constant and `entries`, one per feature in the model's
   order: its family's template, that family's parameters `p` and the scoring term; for a
   per-group model also `group_constant` and `group_entries`, whose parameters are columns
   of the row's group (`group_table`, as in standalone_score.sql; `matched` is NULL for a
   row no group model scores, which the pooled model scores). A feature's log-likelihood is
   its share of the class constant (the family's `share_of`, 0 for a family without one) plus its term (`term_of`, the
   very expression the family's `jll` sums); `log_prior` is the constant less the shares,
   so log_prior + the sum over features is the joint log-likelihood. `row`: the one input
   row explained (None: all). `top`: the number of features kept per row (None: every row
   x class x feature). `features`: the name and SQL of each feature, in order. `cleaned`:
   numeric features read once per row with NaN as NULL (`alias`), which the terms read. #}
{% from 'common.sql' import num %}
{% macro share(entry) -%}
{% import entry.template as family %}
{% if family.share_of is defined %}{{ family.share_of(entry.term) | trim }}{% else %}0{% endif %}
{%- endmacro %}
{% macro entry_term(entry) -%}
{% import entry.template as family %}
{{ share(entry) | trim }} + ({{ family.term_of(entry.term, entry.p) | trim }})
{%- endmacro %}
{% macro entries_prior(constant, entries) -%}
{{ constant | lit }} - list_sum([{% for entry in entries %}{{ share(entry) | trim }}{{ ", " if not loop.last }}{% endfor %}])
{%- endmacro %}
{# class c's term of feature i, and its log prior (NULL for a class the row's group never
   saw: the class has no joint log-likelihood there) #}
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
        row_number() OVER () - 1 AS __sqlnb_row
    FROM {{ source }}
{% if row is not none %}
), chosen AS (
    SELECT * FROM numbered WHERE __sqlnb_row = {{ row | lit }}
{% endif %}
), priors AS (
    SELECT
{% for c in classes %}
        {{ entries_prior(c.constant, c.entries) }} AS {{ ('__sqlnb_prior_' ~ loop.index0) | ident }}{{ "," if not loop.last }}
{% endfor %}
{% if group_table %}
), group_parameters ({{ group_table.columns | join(", ") }}) AS (
    -- one model per group: a row of parameters each (NULL for a class the group never saw)
    VALUES
    {% for values in group_table.rows %}
        ({{ values | join(", ") }}){{ "," if not loop.last }}
    {% endfor %}
{% endif %}
{% if not top %}
)
-- one output row per class x feature of each row: parallel lists unnested together
SELECT
    __sqlnb_row AS row_number,
    unnest([{% for c in classes %}{% set outer = loop %}{% for entry in c.entries %}{{ c.label }}{{ ", " if not (outer.last and loop.last) }}{% endfor %}{% endfor %}]) AS class,
    unnest([{% for c in classes %}{% set outer = loop %}{% for entry in c.entries %}{{ entry.term.name | lit }}{{ ", " if not (outer.last and loop.last) }}{% endfor %}{% endfor %}]) AS feature,
    unnest([
{% for c in classes %}
{% set outer = loop %}
{% for entry in c.entries %}
        {{ class_term(c, loop.index0) }}{{ "," if not (outer.last and loop.last) }}
{% endfor %}
{% endfor %}
    ]) AS log_likelihood,
    unnest([
{% for c in classes %}
{% set outer = loop %}
{% set prior = class_prior(c, outer.index0) %}
{% for entry in c.entries %}
        {{ prior }}{{ "," if not (outer.last and loop.last) }}
{% endfor %}
{% endfor %}
    ]) AS log_prior
{{ rows_from() }}
{% else %}
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
), joint AS (
    SELECT
        *,
{% for c in classes %}
{% set p = loop.index0 %}
        {{ ('__sqlnb_class_prior_' ~ p) | ident }} + list_sum([{% for entry in c.entries %}{{ ('__sqlnb_t_' ~ p ~ '_' ~ loop.index0) | ident }}{{ ", " if not loop.last }}{% endfor %}]) AS {{ ('__sqlnb_jll_' ~ p) | ident }}{{ "," if not loop.last }}
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
        __sqlnb_row,
        __sqlnb_first,
        __sqlnb_second,
{% for f in features %}
        {{ ('__sqlnb_x_' ~ loop.index0) | ident }},
{% endfor %}
        [
{% for f in features %}
{% set i = loop.index0 %}
            CASE __sqlnb_first{% for c in classes %} WHEN {{ loop.index0 }} THEN {{ ('__sqlnb_t_' ~ loop.index0 ~ '_' ~ i) | ident }}{% endfor %} END
            - coalesce(CASE __sqlnb_second{% for c in classes %} WHEN {{ loop.index0 }} THEN {{ ('__sqlnb_t_' ~ loop.index0 ~ '_' ~ i) | ident }}{% endfor %} END, 0){{ "," if not loop.last }}
{% endfor %}
        ] AS __sqlnb_differences
    FROM paired
), ordered AS (
    -- the features by difference, the largest first (ties to the first feature)
    SELECT *, list_grade_up(__sqlnb_differences, 'DESC') AS __sqlnb_order
    FROM differences
)
-- one output row per rank: parallel lists of k entries unnested together, the values
-- turned into text only for the features kept
SELECT
    __sqlnb_row AS row_number,
    unnest([{% for r in range(1, top + 1) %}{{ r }}{{ ", " if not loop.last }}{% endfor %}]) AS rank,
    unnest([{% for r in range(1, top + 1) %}[{% for f in features %}{{ f.name | lit }}{{ ", " if not loop.last }}{% endfor %}][__sqlnb_order[{{ r }}]]{{ ", " if not loop.last }}{% endfor %}]) AS feature,
    unnest([
{% for r in range(1, top + 1) %}
        CASE __sqlnb_order[{{ r }}]{% for f in features %} WHEN {{ loop.index }} THEN {{ sql.as_text(('__sqlnb_x_' ~ loop.index0) | ident) }}{% endfor %} END{{ "," if not loop.last }}
{% endfor %}
    ]) AS value,
    unnest([{% for r in range(1, top + 1) %}__sqlnb_differences[__sqlnb_order[{{ r }}]]{{ ", " if not loop.last }}{% endfor %}]) AS contribution,
    [{% for c in classes %}{{ c.label }}{{ ", " if not loop.last }}{% endfor %}][__sqlnb_first + 1] AS prediction,
    [{% for c in classes %}{{ c.label }}{{ ", " if not loop.last }}{% endfor %}][__sqlnb_second + 1] AS runner_up
FROM ordered
ORDER BY row_number, rank
{% endif %}
