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
    -- per class, the list of its features' terms (in feature order)
    SELECT
        __sqlnb_row,
{% for c in classes %}
        [
{% for entry in c.entries %}
{% import entry.template as family %}
            {{ entry.term.share | lit }} + ({{ family.term_of(entry.term, entry.p) | trim }}){{ "," if not loop.last }}
{% endfor %}
        ] AS {{ ('__sqlnb_terms_' ~ c.index) | ident }},
{% endfor %}
        [{% for f in features %}{{ sql.as_text(f.column) }}{{ ", " if not loop.last }}{% endfor %}] AS __sqlnb_values
    FROM {{ 'numbered' if row is none else 'chosen' }}
), joint AS (
    SELECT
        *,
{% for c in classes %}
        {{ c.log_prior | lit }} + list_sum({{ ('__sqlnb_terms_' ~ c.index) | ident }}) AS {{ ('__sqlnb_jll_' ~ c.index) | ident }}{{ "," if not loop.last }}
{% endfor %}
    FROM terms
), ranked AS (
    -- the predicted class and the runner-up (ties to the first class in sorted order)
    SELECT
        *,
        list_sort([
{% for c in classes %}
            {'minus_jll': -{{ ('__sqlnb_jll_' ~ c.index) | ident }}, 'place': {{ loop.index }}}{{ "," if not loop.last }}
{% endfor %}
        ]) AS __sqlnb_order
    FROM joint
), pair AS (
    SELECT
        __sqlnb_row,
        __sqlnb_values,
        __sqlnb_order[1].place AS __sqlnb_first,
        __sqlnb_order[2].place AS __sqlnb_second,
        [{% for c in classes %}{{ ('__sqlnb_terms_' ~ c.index) | ident }}{{ ", " if not loop.last }}{% endfor %}] AS __sqlnb_terms
    FROM ranked
), ordered AS (
    -- each feature's term in the predicted class less its term in the runner-up, the
    -- largest first (ties to the first feature)
    SELECT
        __sqlnb_row,
        __sqlnb_first,
        __sqlnb_second,
        __sqlnb_values,
        list_slice(list_sort(list_transform(range(1, {{ features | length + 1 }}), lambda i: {
            'minus': -(__sqlnb_terms[__sqlnb_first][i] - coalesce(__sqlnb_terms[__sqlnb_second][i], 0)),
            'feature': i})), 1, {{ top }}) AS __sqlnb_top
    FROM pair
), kept AS (
    SELECT __sqlnb_row, __sqlnb_first, __sqlnb_second, __sqlnb_values,
           unnest(__sqlnb_top) AS __sqlnb_entry, generate_subscripts(__sqlnb_top, 1) AS __sqlnb_rank
    FROM ordered
)
SELECT
    __sqlnb_row AS row_number,
    __sqlnb_rank AS rank,
    [{% for f in features %}{{ f.name | lit }}{{ ", " if not loop.last }}{% endfor %}][__sqlnb_entry.feature] AS feature,
    __sqlnb_values[__sqlnb_entry.feature] AS value,
    -__sqlnb_entry.minus AS contribution,
    [{% for c in classes %}{{ c.label }}{{ ", " if not loop.last }}{% endfor %}][__sqlnb_first] AS prediction,
    [{% for c in classes %}{{ c.label }}{{ ", " if not loop.last }}{% endfor %}][__sqlnb_second] AS runner_up
FROM kept
ORDER BY row_number, rank
{% endif %}
