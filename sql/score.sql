-- Score {{ source }} with model {{ model | lit }} ({{ family_name }} naive Bayes):
-- one joint log-likelihood expression per class, then {{ output }}.
{% import family_template as family %}
{% from 'scoring_helpers.sql' import chunked %}
{% if robust %}
WITH raw AS (
    -- each class's log-likelihood on the raw values: a NaN in a floating-point column
    -- makes it NaN, and only those rows are scored again with NaN as a missing value
    SELECT
        *,
    {% for c in classes %}
        {{ chunked(family, c, p) | trim }} AS {{ ('__sqlnb_raw_' ~ c.index) | ident }}{{ "," if not loop.last }}
    {% endfor %}
    FROM {{ source }}
), joint AS (
    SELECT
    {% for column in keep %}
        {{ column }},
    {% endfor %}
    {% for c in robust %}
    {% set raw = ('__sqlnb_raw_' ~ c.index) | ident %}
        CASE WHEN isfinite({{ raw }}) THEN {{ raw }} ELSE {{ chunked(family, c, p) | trim }} END AS {{ c.jll }}{{ "," if not loop.last }}
    {% endfor %}
    FROM raw
{% else %}
WITH joint AS (
    SELECT
    {% for column in keep %}
        {{ column }},
    {% endfor %}
    {% for c in classes %}
        {{ chunked(family, c, p) | trim }} AS {{ c.jll }}{{ "," if not loop.last }}
    {% endfor %}
    FROM {{ source }}
{% endif %}
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
        {% if output in ('proba', 'log_proba') %}
        -- log-sum-exp around the largest term
        __sqlnb_max + ln({% for c in classes %}exp({{ c.jll }} - __sqlnb_max){{ " + " if not loop.last }}{% endfor %}) AS __sqlnb_lse
        {% else %}
        NULL AS __sqlnb_lse
        {% endif %}
    FROM maximum
)
SELECT
{% for column in keep %}
    {{ column }},
{% endfor %}
{% if output == 'predict' %}
    -- argmax; ties go to the first class in sorted order
    CASE
    {% for c in classes %}
        WHEN {{ c.jll }} = __sqlnb_max THEN {{ c.label }}
    {% endfor %}
    END AS {{ prediction }}
{% else %}
{% for c in classes %}
    {% if output == 'joint' %}
    {{ c.jll }}
    {% elif output == 'log_proba' %}
    {{ c.jll }} - __sqlnb_lse
    {% else %}
    exp({{ c.jll }} - __sqlnb_lse)
    {% endif %}
    AS {{ c.output }}{{ "," if not loop.last }}
{% endfor %}
{% endif %}
FROM normalised
