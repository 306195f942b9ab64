-- Cross-validated scores of model {{ model | comment }} ({{ family_name | comment }} naive Bayes):
-- one scan of the source in which every labelled row is scored by its own fold's
-- held-out model for every candidate, then scikit-learn's metrics per candidate and fold,
-- aggregated in SQL (weighted by the sample weight when there is one, as GridSearchCV
-- forwards sample_weight to its scorers).
{% set text = text | default(none) %}
{% if not arrays and not text %}{% import family_template as family %}{% endif %}
{% from 'score/scoring_helpers.sql' import chunked %}
{% from 'families/common.sql' import num %}
{% macro position() -%}
{#- the row's (group and) fold as a position in the held-out models' order: it picks the
    parameters (NULL where that model's training rows lack the class) #}
{% if consecutive %}{# folds 0..k-1 (hashed): the position is the fold plus one #}CAST(__sqlnb_fold AS INTEGER) + 1{% else %}CASE{% for key in keys %} WHEN {% for column in key_columns %}{{ column }} = {{ key[loop.index0] }}{{ " AND " if not loop.last }}{% endfor %} THEN {{ loop.index }}{% endfor %} END{% endif %}
{%- endmacro %}
{% macro in_order(value, condition=none, order=['label']) -%}
{{ sql.ordered_sum(value, order, condition) }}
{%- endmacro %}
{% if text %}
{#- Text: each document's terms, joined with its fold's coefficients (one column per
    candidate and class); a term outside the fold's vocabulary finds none and is
    ignored, as the fold's CountVectorizer ignores it. #}
{#- `text.routed` (a per-group text model's): the coefficients and constants are keyed by
    the model too (`__sqlnb_route`, 0 the pooled one); a document is scored by its group's
    model of its fold where that group trained in the fold, else by the pooled one. #}
{% import 'text/analyzer.sql' as analyzer %}
{% from 'families/counts.sql' import value %}
{% set text_keys = ['__sqlnb_route', '__sqlnb_fold'] if text.routed else ['__sqlnb_fold'] %}
{% macro on(a, b, keys) -%}
{% for k in keys %}{{ a }}.{{ k }} = {{ b }}.{{ k }}{{ " AND " if not loop.last }}{% endfor %}
{%- endmacro %}
WITH text_documents AS {{ sql.materialized() }}(
    SELECT
        {{ sql.row_id() }} AS __sqlnb_doc,
        __sqlnb_fold,
{% if text.routed %}
        coalesce(__sqlnb_trained.__sqlnb_model, 0) AS __sqlnb_route,
{% endif %}
        {{ target }} AS __sqlnb_y,
        {% if weight %}CAST({{ weight }} AS DOUBLE){% else %}CAST(1 AS DOUBLE){% endif %} AS __sqlnb_w,
        {{ analyzer.tokens(text.column, text.a) }} AS __sqlnb_tokens
    FROM {{ source }}
{% if text.routed %}
    -- the groups each fold's training documents have
    LEFT JOIN (
        SELECT DISTINCT __sqlnb_route AS __sqlnb_model, __sqlnb_fold AS __sqlnb_model_fold
        FROM {{ text.constants }}
        WHERE __sqlnb_route > 0
    ) AS __sqlnb_trained
        ON __sqlnb_trained.__sqlnb_model = __sqlnb_route AND __sqlnb_trained.__sqlnb_model_fold = __sqlnb_fold
{% endif %}
    WHERE {{ target }} IS NOT NULL AND __sqlnb_fold IS NOT NULL
), document_terms AS (
    SELECT __sqlnb_doc, {{ text_keys | join(", ") }}, cell.key AS term, cell.value AS count
    FROM (
        SELECT __sqlnb_doc, {{ text_keys | join(", ") }}, {{ sql.unnest(sql.histogram(analyzer.terms('__sqlnb_tokens', text.a))) }} AS cell
        FROM text_documents
    )
), term_coefficients AS (
    SELECT
        {{ text_keys | join(", ") }},
        term,
{% for g in candidates %}
{% set candidate = loop.index0 %}
{% for c in g.classes %}
        sum(CASE WHEN candidate = {{ candidate }} AND class = {{ c.label }} THEN coef END) AS {{ c.coef }}{{ "," if not (loop.last and candidate == candidates | length - 1) }}
{% endfor %}
{% endfor %}
    FROM {{ text.coefficients }}
    GROUP BY {{ text_keys | join(", ") }}, term
), fold_constants AS (
    -- NULL where the fold's training documents lack the class
    SELECT
        {{ text_keys | join(", ") }},
{% for g in candidates %}
{% set candidate = loop.index0 %}
{% for c in g.classes %}
        sum(CASE WHEN candidate = {{ candidate }} AND class = {{ c.label }} THEN constant END) AS {{ c.constant }}{{ "," if not (loop.last and candidate == candidates | length - 1) }}
{% endfor %}
{% endfor %}
    FROM {{ text.constants }}
    GROUP BY {{ text_keys | join(", ") }}
), term_sums AS (
    SELECT
        d.__sqlnb_doc,
{% for g in candidates %}
{% set candidate = loop.index0 %}
{% for c in g.classes %}
        sum({{ value({'column': analyzer.tf('d.count', text.a)}, text.binarize) }} * k.{{ c.coef }}) AS {{ c.sum }}{{ "," if not (loop.last and candidate == candidates | length - 1) }}
{% endfor %}
{% endfor %}
    FROM document_terms AS d
    JOIN term_coefficients AS k ON {{ on('k', 'd', text_keys) }} AND k.term = d.term
    GROUP BY d.__sqlnb_doc
), joint AS (
    SELECT
        d.__sqlnb_fold,
        d.__sqlnb_y,
        d.__sqlnb_w,
{% for g in candidates %}
{% for c in g.classes %}
        k.{{ c.constant }} + coalesce(s.{{ c.sum }}, 0) AS {{ c.jll }}{{ "," if not loop.last }}
{% endfor %}{{ "," if not loop.last }}
{% endfor %}
    FROM text_documents AS d
    JOIN fold_constants AS k ON {{ on('k', 'd', text_keys) }}
    LEFT JOIN term_sums AS s ON s.__sqlnb_doc = d.__sqlnb_doc
{% elif arrays %}
{#- Parameters as data: each class's constants, weights and fallbacks per fold and
    candidate are bound lists ($n) in the held-out models' order (folds, or groups and
    folds), indexed by the row's position in it; one
    dot product per row and class applies them. No join; for the Gaussian no CASE per
    class either. #}
{% set gaussian = arrays.kind == 'distance' %}
{% macro mask() -%}
{% if gaussian %}[{% for f in features %}CAST(__sqlnb_c{{ loop.index0 }} IS NULL AS DOUBLE){{ ", " if not loop.last }}{% endfor %}]{% else %}list_transform(__sqlnb_x, lambda v: CAST(v IS NULL AS DOUBLE)){% endif %}
{%- endmacro %}
{% macro value(f) -%}
{% if f.guard and not complete %}{{ num(f) }}{% elif f.double %}{{ f.column }}{% else %}CAST({{ f.column }} AS DOUBLE){% endif %}
{%- endmacro %}
WITH labelled AS (
    SELECT
        __sqlnb_fold,
        {{ position() }} AS __sqlnb_position,
        {{ target }} AS __sqlnb_y,
        {% if weight %}CAST({{ weight }} AS DOUBLE){% else %}CAST(1 AS DOUBLE){% endif %} AS __sqlnb_w,
{% if gaussian %}
{% for f in features %}
        {# NaN is a missing value: made NULL once here #}
        {{ value(f) }} - {{ arrays.centre[loop.index0] }} AS __sqlnb_c{{ loop.index0 }}{{ "," if not loop.last }}
{% endfor %}
{% else %}
{% set values -%}
[{% for f in features %}{% if f.double %}{{ f.column }}{% else %}CAST({{ f.column }} AS DOUBLE){% endif %}{{ ", " if not loop.last }}{% endfor %}]
{%- endset %}
{% if any_float %}
{# a NaN is a missing value: one test in a lambda over the row's list (see families/common.sql's num) #}
{% set values = 'list_transform(' ~ values ~ ', lambda v: CASE WHEN isfinite(v) OR isinf(v) THEN v END)' %}
{% endif %}
{% if arrays.binarize is not none %}
{% set values = 'list_transform(' ~ values ~ ', lambda v: CAST(v > ' ~ (arrays.binarize | lit) ~ ' AS DOUBLE))' %}
{% endif %}
        {{ values }} AS __sqlnb_x
{% endif %}
    FROM {{ source }}
    WHERE {{ target }} IS NOT NULL{% for column in nullable_keys %} AND {{ column }} IS NOT NULL{% endfor %}

), prepared AS (
    SELECT
        *,
{% if complete %}
        -- no labelled row misses a value (the statistics counted every one)
        true AS __sqlnb_complete,
{% elif gaussian %}
        {% for f in features %}__sqlnb_c{{ loop.index0 }} IS NOT NULL{{ " AND " if not loop.last }}{% endfor %} AS __sqlnb_complete,
{% else %}
        list_count(__sqlnb_x) = {{ features | length }} AS __sqlnb_complete,
{% endif %}
{% if gaussian %}
        -- the values around the centre, then their squares: with the classes' means and
        -- inverse variances folded into each candidate's weights, one dot product per
        -- class and candidate, and nothing per class computed per row (0 where missing)
        [{% for f in features %}{% if complete %}__sqlnb_c{{ loop.index0 }}{% else %}coalesce(__sqlnb_c{{ loop.index0 }}, 0){% endif %}, {% endfor %}{% for f in features %}{% if complete %}__sqlnb_c{{ loop.index0 }} * __sqlnb_c{{ loop.index0 }}{% else %}coalesce(__sqlnb_c{{ loop.index0 }} * __sqlnb_c{{ loop.index0 }}, 0){% endif %}{{ ", " if not loop.last }}{% endfor %}] AS __sqlnb_x0
{% else %}
        {% if complete %}__sqlnb_x{% else %}list_transform(__sqlnb_x, lambda v: coalesce(v, 0)){% endif %} AS __sqlnb_x0
{% endif %}
    FROM labelled
), incomplete AS (
    SELECT
        *,
{% if complete %}
        NULL AS __sqlnb_missing
{% else %}
        -- which values are missing (a list on every row: list_dot_product refuses the
        -- NULL list a CASE would leave on complete rows)
        {{ mask() }} AS __sqlnb_missing
{% endif %}
    FROM prepared
), joint AS (
    SELECT
        __sqlnb_fold,
        __sqlnb_y,
        __sqlnb_w,
{% for g in candidates %}
{% for c in g.classes %}
{% if gaussian %}
        ${{ c.constants }}[__sqlnb_position] + list_dot_product(__sqlnb_x0, ${{ c.weights }}[__sqlnb_position])
{% if not complete %}
            + CASE WHEN __sqlnb_complete THEN 0 ELSE list_dot_product(__sqlnb_missing, ${{ c.fallback }}[__sqlnb_position]) END
{% endif %}
{% else %}
        {#- one bound list per key in a CASE: classes of the discrete families can tie
            exactly, and with lists indexed per row (even by a constant index) such ties
            changed winner between runs (a last-bit difference inside DuckDB) #}
        {#- (the fold itself when there are no groups, as the first version did) #}
        CASE {% if key_columns | length == 1 %}__sqlnb_fold{% else %}__sqlnb_position{% endif %}

{% for k in c.folds %}
            WHEN {% if key_columns | length == 1 %}{{ keys[k.position - 1][0] }}{% else %}{{ k.position }}{% endif %} THEN {{ k.constant }} + list_dot_product(__sqlnb_x0, ${{ k.weights }})
{% if not complete %}
                + CASE WHEN __sqlnb_complete THEN 0 ELSE list_dot_product(__sqlnb_missing, ${{ k.fallback }}) END
{% endif %}
{% endfor %}
        END
{% endif %}
            AS {{ c.jll }}{{ "," if not loop.last }}
{% endfor %}{{ "," if not loop.last }}
{% endfor %}
    FROM incomplete
{% else %}
WITH labelled AS (
    SELECT
        __sqlnb_fold,
        {{ position() }} AS __sqlnb_position,
        {{ target }} AS __sqlnb_y,
        {% if weight %}CAST({{ weight }} AS DOUBLE){% else %}CAST(1 AS DOUBLE){% endif %} AS __sqlnb_w,
{% for f in features %}
        {# NaN is a missing value: made NULL once here, so the terms need no test of their own #}
        {% if f.guard %}{{ num(f) }}{% else %}{{ f.column }}{% endif %} AS {{ f.column }}{{ "," if not loop.last }}
{% endfor %}
    FROM {{ source }}
    WHERE {{ target }} IS NOT NULL{% for column in nullable_keys %} AND {{ column }} IS NOT NULL{% endfor %}

), joint AS (
    SELECT
        __sqlnb_fold,
        __sqlnb_y,
        __sqlnb_w,
{% for g in candidates %}
{% for c in g.classes %}
        CASE __sqlnb_position
{% for k in c.folds %}
            WHEN {{ k.position }} THEN {{ chunked(family, k.model, g.p) | trim }}
{% endfor %}
        END AS {{ c.jll }}{{ "," if not loop.last }}
{% endfor %}{{ "," if not loop.last }}
{% endfor %}
    FROM labelled
{% endif %}
), maximum AS (
    SELECT
        *,
{% for g in candidates %}
        {{ fn.greatest }}({% for c in g.classes %}{{ c.jll }}{{ ", " if not loop.last }}{% endfor %}) AS {{ g.max }}{{ "," if not loop.last }}
{% endfor %}
    FROM joint
), per_row AS (
    SELECT
        __sqlnb_fold,
        __sqlnb_y,
        __sqlnb_w,
{% for g in candidates %}
        -- argmax; ties go to the first class in sorted order
        CASE {% for c in g.classes %}WHEN {{ c.jll }} = {{ g.max }} THEN {{ c.label }} {% endfor %}END AS __sqlnb_prediction_{{ loop.index0 }}{{ "," if log_loss or not loop.last }}
{% if log_loss %}
        -- the true class's probability, clipped to [eps, 1 - eps] as log_loss does
        -ln(least(greatest(coalesce(exp(
            CASE __sqlnb_y {% for c in g.classes %}WHEN {{ c.label }} THEN {{ c.jll }} {% endfor %}END
            - {{ g.max }} - ln({% for c in g.classes %}coalesce(exp({{ c.jll }} - {{ g.max }}), 0){{ " + " if not loop.last }}{% endfor %})
        ), 0), {{ eps | lit }}), 1 - {{ eps | lit }})) AS __sqlnb_loss_{{ loop.index0 }}{{ "," if not loop.last }}
{% endif %}
{% endfor %}
    FROM maximum
), cells AS (
    -- per fold and true class, each candidate's predictions counted per predicted class
    -- (compensated sums: all but independent of the order rows arrive in; without weights
    -- exact counts; a CASE inside the aggregate rather than a FILTER, which DuckDB runs
    -- more slowly; NULL: no such row)
    SELECT
        __sqlnb_fold,
        __sqlnb_y,
{% for g in candidates %}
{% set candidate = loop.index0 %}
{% for label in labels %}
        {% if weight %}{{ sql.exact_sum('CASE WHEN __sqlnb_prediction_' ~ candidate ~ ' = ' ~ label ~ ' THEN __sqlnb_w END') }}{% else %}CAST(nullif(count(CASE WHEN __sqlnb_prediction_{{ candidate }} = {{ label }} THEN 1 END), 0) AS DOUBLE){% endif %} AS __sqlnb_weight_{{ candidate }}_{{ loop.index0 }},
        {% if log_loss %}{{ sql.exact_sum('CASE WHEN __sqlnb_prediction_' ~ candidate ~ ' = ' ~ label ~ ' THEN __sqlnb_w * __sqlnb_loss_' ~ candidate ~ ' END') }}{% else %}CAST(0 AS DOUBLE){% endif %} AS __sqlnb_loss_{{ candidate }}_{{ loop.index0 }}{{ "," if not (loop.last and candidate == candidates | length - 1) }}
{% endfor %}
{% endfor %}
    FROM per_row
    GROUP BY __sqlnb_fold, __sqlnb_y
), unpivoted AS (
    SELECT
        __sqlnb_fold,
        __sqlnb_y,
{% set cells = namespace(candidate=[], prediction=[], weight=[], loss=[]) %}
{% for g in candidates %}{% set candidate = loop.index0 %}{% for label in labels %}
{% set cells.candidate = cells.candidate + [candidate | string] %}
{% set cells.prediction = cells.prediction + [label] %}
{% set cells.weight = cells.weight + ['__sqlnb_weight_' ~ candidate ~ '_' ~ loop.index0] %}
{% set cells.loss = cells.loss + ['__sqlnb_loss_' ~ candidate ~ '_' ~ loop.index0] %}
{% endfor %}{% endfor %}
        {{ sql.unpivot([('candidate', cells.candidate), ('prediction', cells.prediction), ('weight', cells.weight), ('loss', cells.loss)]) }}
    FROM cells
), confusion AS (
    -- the cells that have rows: (candidate, fold, true class, predicted class)
    SELECT candidate, __sqlnb_fold AS fold, __sqlnb_y AS label, prediction, weight, loss
    FROM unpivoted
    WHERE weight IS NOT NULL
), labels AS (
    -- scikit-learn's labels: those of the true values and of the predictions
    SELECT candidate, fold, label FROM confusion
    UNION
    SELECT candidate, fold, prediction FROM confusion
), per_label AS (
    SELECT
        l.candidate,
        l.fold,
        l.label,
        coalesce(sum(c.weight) FILTER (WHERE c.label = l.label AND c.prediction = l.label), 0) AS tp,
        coalesce(sum(c.weight) FILTER (WHERE c.label = l.label), 0) AS support,
        coalesce(sum(c.weight) FILTER (WHERE c.prediction = l.label), 0) AS predicted
    FROM labels AS l
    JOIN confusion AS c ON c.candidate = l.candidate AND c.fold = l.fold
    GROUP BY l.candidate, l.fold, l.label
), label_scores AS (
    SELECT
        *,
        -- F1 = 2 tp / (2 tp + fp + fn); 0 when undefined (scikit-learn's zero_division)
        CASE WHEN support + predicted > 0 THEN 2 * tp / (support + predicted) ELSE 0 END AS f1
    FROM per_label
), splits AS (
    -- sums over the labels in label order, so that equal per-label scores give equal
    -- totals (and tie in rank_test_*, as they do in scikit-learn)
    SELECT
        candidate,
        fold,
        {{ in_order('tp') }} / {{ in_order('support') }} AS accuracy,
        {{ in_order('f1') }} / count(*) AS f1_macro,
        CASE WHEN {{ in_order('support') }} > 0
            THEN {{ in_order('f1 * support') }} / {{ in_order('support') }} ELSE 0 END AS f1_weighted,
        -- the mean recall over the classes present in the fold
        {{ in_order('tp / support', 'support > 0') }} / count(*) FILTER (WHERE support > 0) AS balanced_accuracy
    FROM label_scores
    GROUP BY candidate, fold
), losses AS (
    SELECT candidate, fold, -{{ in_order('loss', order=['label', 'prediction']) }} / {{ in_order('weight', order=['label', 'prediction']) }} AS neg_log_loss
    FROM confusion
    GROUP BY candidate, fold
)
SELECT s.candidate, s.fold, s.accuracy, l.neg_log_loss, s.f1_macro, s.f1_weighted, s.balanced_accuracy
FROM splits AS s
JOIN losses AS l ON l.candidate = s.candidate AND l.fold = s.fold
ORDER BY s.candidate, s.fold
