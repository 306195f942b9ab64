-- Explain {{ source | comment }} with model {{ model | comment }}: each feature's term of
-- each class's joint log-likelihood, per input row.
{# `classes`: per class its label, index, `log_prior` (the class constant less the
    features' shares of it) and `entries`, one per feature in the model's order: its
    family's template, that family's parameters `p` and the scoring term, with `share`:
    its part of the class constant. A feature's
    log-likelihood is its share plus the family's own term (`term_of`, the very expression
    the family's `jll` sums), so log_prior + the sum over features is the joint
    log-likelihood. `row`: the one input row explained (None: all). `top`: the number of features kept per row (None: every row x class x
    feature). `features`: the name and SQL of each feature, in order. `cleaned`: numeric
   features read once per row with NaN as NULL (`alias`), which the terms then read. #}
{% from 'common.sql' import num %}
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
{% import entry.template as family %}
        {{ entry.term.share | lit }} + ({{ family.term_of(entry.term, entry.p) | trim }}){{ "," if not (outer.last and loop.last) }}
{% endfor %}
{% endfor %}
    ]) AS log_likelihood,
    unnest([{% for c in classes %}{% set outer = loop %}{% for entry in c.entries %}{{ c.log_prior | lit }}{{ ", " if not (outer.last and loop.last) }}{% endfor %}{% endfor %}]) AS log_prior
FROM {{ 'numbered' if row is none else 'chosen' }}
{% else %}
), terms AS (
    -- each class's term of each feature (class position p, feature position f)
    SELECT
        __sqlnb_row,
{% for c in classes %}
{% set p = loop.index0 %}
{% for entry in c.entries %}
{% import entry.template as family %}
        {{ entry.term.share | lit }} + ({{ family.term_of(entry.term, entry.p) | trim }}) AS {{ ('__sqlnb_t_' ~ p ~ '_' ~ loop.index0) | ident }},
{% endfor %}
{% endfor %}
{% for f in features %}
        {{ f.column }} AS {{ ('__sqlnb_x_' ~ loop.index0) | ident }}{{ "," if not loop.last }}
{% endfor %}
    FROM {{ 'numbered' if row is none else 'chosen' }}
), joint AS (
    SELECT
        *,
{% for c in classes %}
{% set p = loop.index0 %}
        {{ c.log_prior | lit }} + list_sum([{% for entry in c.entries %}{{ ('__sqlnb_t_' ~ p ~ '_' ~ loop.index0) | ident }}{{ ", " if not loop.last }}{% endfor %}]) AS {{ ('__sqlnb_jll_' ~ p) | ident }}{{ "," if not loop.last }}
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
