-- One scan of a relation of predictions: the confusion matrix (true x predicted label)
-- with each cell's summed log loss. Every metric is then computed from this small table.
-- Rows without a true label are left out.
{{ sql.temp_table(confusion) }}
{% if scoring %}
WITH scored AS (
{{ scoring }}
)
{% endif %}
SELECT actual, predicted, count(*) AS n, sum(loss) AS loss
FROM (
    SELECT
        {{ target }} AS actual,
        {{ prediction }} AS predicted,
    {% if probas %}
        -- minus the log of the probability given to the true class (0 for a class the model
        -- does not know), clipped to [eps, 1 - eps] with eps the DOUBLE machine epsilon
        -ln(greatest(least(
            CASE
            {% for c in probas %}
                WHEN {{ target }} = {{ c.label }} THEN {{ c.column }}
            {% endfor %}
                ELSE 0
            END, 1 - {{ eps | lit }}), {{ eps | lit }})) AS loss
    {% else %}
        CAST(NULL AS DOUBLE) AS loss
    {% endif %}
    FROM {{ relation }}
    WHERE {{ target }} IS NOT NULL
)
GROUP BY actual, predicted;
