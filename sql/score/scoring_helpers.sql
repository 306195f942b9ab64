{#- Helpers shared by the scoring statements (score/score.sql, score/standalone_score.sql, the macros).

    Per-group models in one statement: the source is LEFT JOINed to one row of
    parameters per group (alias __sqlnb_group), and each class's joint log-likelihood reads
    the family's parameters from that row (NULL when the group never saw the class). A row
    of a group unseen at fit time, or with a NULL group, finds no row: the pooled model,
    with its parameters inlined, scores it. -#}
{# A model's joint log-likelihood, summed in chunks of terms so that a wide model's
   expression stays shallow (DuckDB limits expression depth, and deep trees bind slowly). #}
{% macro chunked(family, model, p) %}
{% for chunk in model.chunks %}
{% if model.chunks | length > 1 %}({% endif %}{{ family.jll(chunk, p) | trim }}{% if model.chunks | length > 1 %}){{ "\n+ " if not loop.last }}{% endif %}
{% endfor %}
{% endmacro %}

{#- The relations of the categorical features scored by a join (compiler.joined_lookups):
    one row per category, the key and one coefficient column per class, LEFT JOINed on the
    row's value as text. The categories are one JSON text and each class's coefficients
    one DOUBLE[] constant: planning does not grow with a literal per category. -#}
{% macro lookup_joins(lookups) %}
{% for l in lookups %}
    LEFT JOIN (
    {% if l.view %}
        -- the feature's categories where the model keeps them (its parameter view)
        SELECT
            p.category AS {{ l.key }},
        {% for value in l['values'] %}
            max(p.log_prob) FILTER (WHERE c.class_index = {{ l.view.classes[loop.index0] }}) AS {{ value }}{{ "," if not loop.last }}
        {% endfor %}
        FROM {{ l.view.feature_params }} AS p
        JOIN {{ l.view.class_params }} AS c USING (class)
        WHERE p.feature = {{ l.view.feature | lit }} AND p.category IS NOT NULL
        GROUP BY p.category
    {% else %}
        SELECT
            unnest(CAST(json({{ l['keys'] | lit }}) AS VARCHAR[])) AS {{ l.key }},
        {% for coefs in l.coefs %}
            unnest({{ coefs | doubles }}) AS {{ l['values'][loop.index0] }}{{ "," if not loop.last }}
        {% endfor %}
    {% endif %}
    ) AS {{ l.name | ident }} ON {{ l.key }} = {{ sql.as_text(l.column) }}
{% endfor %}
{% endmacro %}

{#- The position of the row's category among each inline categorical feature's sorted
    categories (compiler.coded_positions), one column per feature, read by every class:
    1..n for a known category, n + 1 for a missing value, n + 2 for an unseen one. -#}
{% macro position_columns(positions, gather) %}
{% for f in positions %}
        {{ sql.category_position(sql.as_text(f.column), f['keys']) }} AS {{ f.name }}{{ "," if not loop.last or gather }}
{% endfor %}
{% if gather %}
        -- the row's positions, each offset by the features before it: one list
        [{% for f in gather.features %}{{ sql.category_position(sql.as_text(f.column), f['keys']) }} + {{ f.offset }}{{ ", " if not loop.last }}{% endfor %}] AS {{ gather.name }}
{% endif %}
{% endmacro %}

{% macro class_jll(family, c, p) %}
{% if c.group_model %}
CASE
        WHEN {{ c.matched }} IS NULL THEN
            -- the pooled model
            {{ chunked(family, c, p) | trim }}
        ELSE
            -- the row's group's model
            {{ chunked(family, c.group_model, p) | trim }}
        END
{%- else %}
{{ chunked(family, c, p) | trim }}
{%- endif %}
{% endmacro %}


{#- The output columns over a relation holding each class's `jll`, `__sqlnb_max` and
   `__sqlnb_lse`: the prediction (argmax) and/or one column per class (joint, log_proba or
   proba). `sparse`: a class without a term (per-group models: one the row's group never
   saw) has probability 0. -#}
{% macro output_columns(classes, output, prediction, sparse=false) %}
{% if output in ('predict', 'predict_proba') %}
    -- argmax; ties go to the first class in sorted order
    CASE
    {% for c in classes %}
        WHEN {{ c.jll }} = __sqlnb_max THEN {{ c.label }}
    {% endfor %}
    END AS {{ prediction }}{{ "," if output == 'predict_proba' }}
{% endif %}
{% if output != 'predict' %}
{% for c in classes %}
    {% if output == 'joint' %}
    {{ c.jll }}
    {% elif output == 'log_proba' %}
    {{ c.jll }} - __sqlnb_lse
    {% elif sparse %}
    coalesce(exp({{ c.jll }} - __sqlnb_lse), 0)
    {% else %}
    exp({{ c.jll }} - __sqlnb_lse)
    {% endif %}
    AS {{ c.output }}{{ "," if not loop.last }}
{% endfor %}
{% endif %}
{% endmacro %}

{# The tail every scoring statement shares, after its `joint` CTE (one column per class):
   the maximum, the log-sum-exp around it, and the requested output: the argmax label
   (ties to the first class in sorted order) or one column per class. #}
{% from 'fit/sums.sql' import sum_exp %}
{% macro outputs(classes, keep, output, prediction, order=none) %}
), maximum AS (
    SELECT
        *,
        {% if classes | length == 1 %}
        {{ classes[0].jll }} AS __sqlnb_max
        {% else %}
        {{ fn.greatest }}({% for c in classes %}{{ c.jll }}{{ ", " if not loop.last }}{% endfor %}) AS __sqlnb_max
        {% endif %}
    FROM joint
), normalised AS (
    SELECT
        *,
        {% if output in ('proba', 'log_proba', 'predict_proba') %}
        -- log-sum-exp around the largest term
        __sqlnb_max + ln({{ sum_exp(classes | map(attribute='jll') | list) }}) AS __sqlnb_lse
        {% else %}
        NULL AS __sqlnb_lse
        {% endif %}
    FROM maximum
)
SELECT
{% for column in keep if column != order %}
    {{ column }},
{% endfor %}
{{ output_columns(classes, output, prediction) }}
FROM normalised
{% if order %}
ORDER BY {{ order }}
{% endif %}
{% endmacro %}

{#- The same output step over a list of the classes' joint log-likelihoods (`jll`, in class
    order), for the statements and macros that hold them as one list: the argmax label
    (ties to the first class in sorted order), the log-sum-exp around the largest term,
    and the output columns. -#}
{% macro list_argmax(classes, jll) -%}
[{% for c in classes %}{{ c.label }}{{ ", " if not loop.last }}{% endfor %}][list_position({{ jll }}, list_max({{ jll }}))]
{%- endmacro %}

{% macro list_lse(jll) -%}
list_max({{ jll }}) + ln(list_sum(list_transform({{ jll }}, lambda v: exp(v - list_max({{ jll }})))))
{%- endmacro %}

{#- One column per class from `jll`: the joint terms themselves, or (log-)probabilities
    (the log-sum-exp is the same expression in every class: DuckDB computes it once). -#}
{% macro list_outputs(classes, output, jll) -%}
{% for c in classes %}
    {% if output == 'joint' %}
    {{ jll }}[{{ loop.index }}]
    {% elif output == 'log_proba' %}
    {{ jll }}[{{ loop.index }}] - ({{ list_lse(jll) }})
    {% else %}
    exp({{ jll }}[{{ loop.index }}] - ({{ list_lse(jll) }}))
    {% endif %}
    AS {{ c.output }}{{ "," if not loop.last }}
{% endfor %}
{%- endmacro %}

{#- A statement scoring each row of `source` by one list expression: `scored` is the label
    itself for `predict`, else the classes' list of joint log-likelihoods, which
    `list_outputs` turns into the output columns. -#}
{% macro list_statement(scored, source, keep, classes, output, jll, prediction) -%}
{% if output == 'predict' %}
SELECT
    {% if keep %}*,{% endif %}
    {{ scored }} AS {{ prediction }}
FROM {{ source }}
{% else %}
SELECT
    {% if keep %}* EXCLUDE ({{ jll }}),{% endif %}
{{ list_outputs(classes, output, jll) }}
FROM (
    SELECT
        {% if keep %}*,{% endif %}
        {{ scored }} AS {{ jll }}
    FROM {{ source }}
)
{% endif %}
{%- endmacro %}
