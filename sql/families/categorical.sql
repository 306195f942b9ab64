{#-
  Categorical naive Bayes on the raw values of each column (compared as text).
  Statistics: per class x feature x category the weighted count.
  Integer columns are codes 0..k-1 as in scikit-learn: every code up to the largest one
  seen (or min_categories) is part of the domain. Other columns use the values seen.
  log P(x_f = v | c) = log(count_cfv + alpha) - log(total_cf + alpha * n_categories_f).
  A category outside the domain (unseen = 'smooth', the default) gets the same formula
  with a zero count (the row with category NULL in feature_params):
      log P(x_f = unseen | c) = log(alpha) - log(total_cf + alpha * n_categories_f);
  unseen = 'ignore' leaves the feature out of that row's likelihood (adds 0), and
  unseen = 'error' raises, as scikit-learn does.
  NULL is a missing value: it is not counted at fit (totals are over the rows with a
  value) and adds 0 at predict when missing = 'ignore'.
-#}
{% from 'update/incremental.sql' import signed, added %}
{% from 'families/common.sql' import by_group, sum_of_terms %}

{% macro stats_table(t, class_type) %}
CREATE TABLE {{ t.feature_stats }} (
{% for g in t.get('groups', []) %}
    {{ g.column }} {{ g.type }} NOT NULL,
{% endfor %}
    class    {{ class_type }} NOT NULL,
    feature  {{ sql.type('VARCHAR') }} NOT NULL,
    category {{ sql.type('VARCHAR') }} NOT NULL,  -- the value, as text
    n        BIGINT NOT NULL,   -- rows with this value
    -- their summed sample weight (scikit-learn's category_count_)
    count    DOUBLE NOT NULL{{ sql.primary_key([by_group(t) ~ 'class', 'feature', 'category']) }}
);
{% endmacro %}

{% macro batch(source, target, weight, features, t) %}
SELECT
{% if t.get('groups') %}
    -- per-group rows and, in the same scan, the pooled model's rows (group NULL)
    GROUPING({{ t.groups[0].column }}) > 0 AS __sqlnb_pooled,
{% for g in t.groups %}
    {{ g.column }},
{% endfor %}
{% endif %}
    class,
    CASE
    {% for f in features %}
        WHEN GROUPING({{ f.alias }}) = 0 THEN {{ f.name | lit }}
    {% endfor %}
    END AS feature,
    CASE
    {% for f in features %}
        WHEN GROUPING({{ f.alias }}) = 0 THEN {{ f.alias }}
    {% endfor %}
    END AS category,
    count(*) AS n,
    {% if weight %}sum(weight){% else %}CAST(count(*) AS DOUBLE){% endif %} AS weight
FROM (
    SELECT
        {% for g in t.get('groups', []) %}
        {{ g.column }},
        {% endfor %}
        {{ target }} AS class,
        {% if weight %}{{ weight }} AS weight,{% endif %}
        {% for f in features %}
        {{ sql.as_text(f.column) }} AS {{ f.alias }}{{ "," if not loop.last }}
        {% endfor %}
    FROM {{ source }}
    WHERE {{ target }} IS NOT NULL
)
GROUP BY GROUPING SETS (
{% if t.get('groups') %}
    ({{ by_group(t) }}class),
    {% for f in features %}
    ({{ by_group(t) }}class, {{ f.alias }}),
    {% endfor %}
{% endif %}
    (class),
    {% for f in features %}
    (class, {{ f.alias }}){{ "," if not loop.last }}
    {% endfor %}
)
{% endmacro %}

{% macro merge(t, features, weighted, sign=1) %}
{% set counts %}
SELECT {{ by_group(t) }}class, feature, category, n, weight AS count
FROM {{ t.batch }}
WHERE feature IS NOT NULL AND category IS NOT NULL
{% endset %}
{{ upsert(t, counts, sign) }}
{% endmacro %}

{# Fold another model's statistics (same features) into this one. #}
{% macro merge_model(t, source, sign=1) %}
{% set counts %}
SELECT {{ by_group(t) }}class, feature, category, n, count FROM {{ source.feature_stats }}
{% endset %}
{{ upsert(t, counts, sign) }}
{% endmacro %}

{# Declared classes without rows need no statistics: the parameter view fills in zeros. #}
{% macro declare(t, features) %}
-- (nothing to store for categorical models)
{% endmacro %}

{# Add (sign = 1) or subtract (sign = -1) per class x feature x category counts. #}
{% macro upsert(t, counts, sign) %}
{% set keys = (t.get('groups', []) | map(attribute='column') | list) + ['class', 'feature', 'category'] %}
{% set rows %}
SELECT {{ by_group(t) }}class, feature, category, {{ signed('n', sign) }}, {{ signed('count', sign) }}
FROM (
{{ counts }}
) AS counts
{% endset %}
{% call(column, old, new) sql.upsert(t.feature_stats, keys, ['n', 'count'], rows, t.get('next_feature_stats'), fresh=t.get('fresh', false)) -%}
{% if column == 'n' %}{{ old }}.n + {{ new }}.n{% else %}{{ added(old ~ '.count', new ~ '.count', sign) }}{% endif %}
{%- endcall %};
{% endmacro %}

{% macro batch_checks(t, features) %}
SELECT DISTINCT b.feature, 'has negative values, which are not category codes' AS problem
FROM {{ t.batch }} AS b
JOIN {{ t.features }} AS f USING (feature)
WHERE f.coding = 'integer' AND TRY_CAST(b.category AS {{ sql.type('HUGEINT') }}) < 0
{% set coded = features | selectattr('coding', 'equalto', 'integer') | list %}
{% if coded %}
UNION ALL
-- integer codes 0..k-1 make a domain of k categories: a stray large code (a zip code, an
-- id) would make millions, so past max_categories the fit stops and says what to do
SELECT b.feature,
       'has the category code ' || max(TRY_CAST(b.category AS {{ sql.type('HUGEINT') }})) || ', so its '
       || 'domain would be the codes 0 to ' || max(TRY_CAST(b.category AS {{ sql.type('HUGEINT') }}))
       || ', more than max_categories=' || any_value(limits.max_categories) || ': name it in '
       || 'value_columns to take its values as categories as they are (only the values '
       || 'seen), recode it to 0..k-1, or raise max_categories' AS problem
FROM {{ t.batch }} AS b
JOIN (VALUES
{% for f in coded %}
    ({{ f.name | lit }}, {{ f.max_categories | lit }}){{ "," if not loop.last }}
{% endfor %}
) AS limits (feature, max_categories) USING (feature)
GROUP BY b.feature
HAVING max(TRY_CAST(b.category AS {{ sql.type('HUGEINT') }})) >= any_value(limits.max_categories)
{% endif %}
{% endmacro %}

{% macro checks(t, features) %}
SELECT NULL AS feature, NULL AS problem WHERE FALSE
{% endmacro %}

{% macro feature_params(t, p) %}
{{ sql.create_view(t.feature_params) }}
WITH observed AS (
    SELECT DISTINCT {{ by_group(t) }}feature, category FROM {{ t.feature_stats }}
), domain AS (
    SELECT {{ by_group(t, 'o.') }}o.feature, o.category
    FROM observed AS o
    JOIN {{ t.features }} AS f USING (feature)
    WHERE f.coding = 'value'
    UNION ALL
    -- integer codes: every code from 0 to the largest seen (or min_categories - 1)
    SELECT {{ by_group(t, 'm.') }}m.feature, {{ sql.as_text('code.code') }}
    FROM (
        SELECT {{ by_group(t, 'o.') }}o.feature, greatest(max(CAST(o.category AS {{ sql.type('HUGEINT') }})) + 1, coalesce(any_value(f.min_categories), 0)) AS size
        FROM observed AS o
        JOIN {{ t.features }} AS f USING (feature)
        WHERE f.coding = 'integer'
        GROUP BY {{ by_group(t, 'o.') }}o.feature
    ) AS m
    {{ sql.codes('m.size', 'code') }}
), sizes AS (
    SELECT {{ by_group(t, 'd.') }}d.feature, greatest(count(*), coalesce(any_value(f.min_categories), 0)) AS n_categories
    FROM domain AS d
    JOIN {{ t.features }} AS f USING (feature)
    GROUP BY {{ by_group(t, 'd.') }}d.feature
), totals AS (
    SELECT {{ by_group(t) }}class, feature, sum(count) AS total FROM {{ t.feature_stats }} GROUP BY {{ by_group(t) }}class, feature
), cells AS (
    SELECT {{ by_group(t, 'c.') }}c.class, d.feature, d.category
    FROM {{ t.class_stats }} AS c
    {% if t.get('groups') %}
    JOIN domain AS d ON {% for g in t.groups %}d.{{ g.column }} = c.{{ g.column }}{{ " AND " if not loop.last }}{% endfor %}
    {% else %}
    CROSS JOIN domain AS d
    {% endif %}
    UNION ALL
    SELECT {{ by_group(t, 'c.') }}c.class, f.feature, NULL AS category   -- the unseen category
    FROM {{ t.class_stats }} AS c
    CROSS JOIN {{ t.features }} AS f
)
SELECT
    {{ by_group(t, 'cells.') }}cells.class,
    cells.feature,
    cells.category,
    coalesce(s.count, 0) AS count,
    z.n_categories,
    {{ sql.ln('coalesce(s.count, 0) + f.alpha') }} - {{ sql.ln('coalesce(t.total, 0) + f.alpha * z.n_categories') }} AS log_prob
FROM cells
JOIN {{ t.features }} AS f USING (feature)
JOIN sizes AS z USING ({{ by_group(t) }}feature)
LEFT JOIN totals AS t ON {% for g in t.get('groups', []) %}t.{{ g.column }} = cells.{{ g.column }} AND {% endfor %}t.class = cells.class AND t.feature = cells.feature
LEFT JOIN {{ t.feature_stats }} AS s
    ON {% for g in t.get('groups', []) %}s.{{ g.column }} = cells.{{ g.column }} AND {% endfor %}s.class = cells.class AND s.feature = cells.feature AND s.category = cells.category;
{% endmacro %}

{% macro read_params(t) %}
SELECT c.class_index, p.feature, p.category, p.log_prob AS coef
FROM {{ t.feature_params }} AS p
JOIN {{ t.class_params }} AS c USING ({{ by_group(t) }}class)
{% endmacro %}

{#- read_params, but a feature of more than `limit` categories gives only its unseen row
    (category NULL) and `elided` true: its categories stay in the database, where the
    scoring statement joins them (compiler.joined_lookups), not in the statement's text. -#}
{% macro read_params_elided(t, limit) %}
-- (the parameter view computed once: read twice, it costs a wide feature twice)
WITH params AS {{ sql.materialized() }}(
    SELECT * FROM {{ t.feature_params }}
), sizes AS (
    SELECT feature, count(DISTINCT category) > {{ limit | lit }} AS elided
    FROM params
    GROUP BY feature
)
SELECT c.class_index, p.feature, p.category, p.log_prob AS coef, z.elided
FROM params AS p
JOIN {{ t.class_params }} AS c USING (class)
JOIN sizes AS z USING (feature)
WHERE p.category IS NULL OR NOT z.elided
{% endmacro %}

{#- One elided feature's categories and each class's coefficient (class index order). -#}
{% macro read_categories(t, feature) %}
SELECT c.class_index, p.category, p.log_prob
FROM {{ t.feature_params }} AS p
JOIN {{ t.class_params }} AS c USING (class)
WHERE p.feature = {{ feature | lit }} AND p.category IS NOT NULL
ORDER BY 1, 2
{% endmacro %}

{% macro class_constant(t) %}
SELECT class_index, log_prior AS constant FROM {{ t.class_params }}
{% endmacro %}

{#- c.gather (score/score.sql, see compiler.coded_positions): the features whose coefficients
    are picked from one list per class (a column of the row score.sql joins) by the row's
    list of positions, then summed -#}
{% macro jll(c, p) %}{{ sum_of_terms(c, p, term_of) | trim }}{% if c.get('gather') %}
        + {{ sql.gathered_sum(c.gather.coefs, c.gather.index, c.gather.size) }}{% endif %}{% endmacro %}

{#- One feature's term of the joint log-likelihood (jll sums them; explain lists them). #}
{% macro term_of(term, p) -%}
{% if p.unseen == 'error' %}
{% set unseen = sql.raise_error("'unseen category in feature ' || " ~ (term.name | lit)) %}
{% elif p.unseen == 'ignore' %}
{% set unseen = '0' %}
{% else %}
{% set unseen = term.unseen | lit %}
{% endif %}
{% if p.missing | default('ignore') == 'ignore' %}
{# a missing value leaves the feature out of the row's likelihood #}
{% set missing = '0' %}
{% else %}
{% set missing = sql.raise_error(('missing value (NULL) in feature ' ~ term.name) | lit) %}
{% endif %}
{% set constant = p.unseen != 'error' and missing == '0' %}
{% if term.lookup is defined and term.lookup %}
{#- joined with a relation of the feature's coefficients, one row per category (see
    compiler.joined_lookups): no category in the expression -#}
CASE WHEN {{ sql.as_text(term.column) }} IS NULL THEN {{ missing }} WHEN {{ term.lookup.key }} IS NULL THEN {{ unseen }} ELSE {{ term.lookup.value }} END
{%- elif term.position is defined and term.position -%}
{# the position was computed once per row and feature (score/score.sql) #}
{{ sql.lookup_position(term.position, sql.as_text(term.column), term.sorted_categories, term.sorted_coefs,
                       unseen, missing, constant, 0.0, 0.0 if p.unseen == 'ignore' else term.unseen) }}
{%- elif term.sorted_categories is defined -%}
{# the same category order for every class, so the engine computes the lookup's position
   once per row and feature, not once per class #}
{{ sql.lookup_sorted(sql.as_text(term.column), term.sorted_categories, term.sorted_coefs, unseen,
                     missing, constant, 0.0, 0.0 if p.unseen == 'ignore' else term.unseen) }}
{%- else -%}
{% set categories = term.categories | default([]) | sort(attribute='0', case_sensitive=true) %}
{{ sql.lookup(sql.as_text(term.column), categories | map(attribute='0') | map('lit') | list,
                        categories | map(attribute='1') | map('lit') | list, unseen, missing,
                        constant) }}
{%- endif %}
{%- endmacro %}
