-- Reliability (calibration) of predicted probabilities, in bins of equal width: for each
-- bin, how many rows fell in it, their mean predicted probability and how often the event
-- happened. Binary: the event is "the label is the positive (second) class" and the score
-- its probability. More classes: the event is "the predicted class is right" and the score
-- the probability of the predicted class (its confidence). A score on a bin's upper edge
-- belongs to that bin, as in scikit-learn's calibration_curve.
WITH scored AS (
    SELECT
    {% if positive is not none %}
        {{ positive.column }} AS score,
        CAST({{ target }} = {{ positive.label }} AS DOUBLE) AS hit
    {% else %}
        {{ fn.greatest }}({% for c in probas %}{{ c.column }}{{ ", " if not loop.last }}{% endfor %}) AS score,
        -- the predicted class is the first one with the largest probability
        CAST(CASE
        {% for c in probas %}
            WHEN {{ c.column }} = {{ fn.greatest }}({% for d in probas %}{{ d.column }}{{ ", " if not loop.last }}{% endfor %})
                THEN {{ target }} = {{ c.label }}
        {% endfor %}
        END AS DOUBLE) AS hit
    {% endif %}
    FROM {{ relation }}
    WHERE {{ target }} IS NOT NULL
)
SELECT
    least({{ bins | lit }}, greatest(1, CAST(ceil(score * {{ bins | lit }}) AS BIGINT))) - 1 AS bin,
    count(*) AS n,
    avg(score) AS mean_predicted,
    avg(hit) AS observed
FROM scored
WHERE score IS NOT NULL
GROUP BY bin
ORDER BY bin
