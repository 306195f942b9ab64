-- The parameters the explain macro of model {{ model | comment }} reads: one row, a column
-- per class constant and, per class and scoring parameter, a list in the model's feature
-- order (the macro's terms read these, see sql/reports/explain.sql). A view over the
-- parameter views, so it is current after every write: one that keeps the classes,
-- features and hyperparameters leaves the view and the macro as they are.
{# `constants`: per class its `class_index` and column `alias`; `lists`: per class and
   parameter its `class_index`, the parameter's `position` among `parameters` (the
   family's scoring parameters, the columns of its `read_params` after the class index and
   the feature) and its `alias`. #}
{% import family_template as family %}
CREATE OR REPLACE VIEW {{ t.explain_params }} AS
SELECT *
FROM (
    SELECT
{% for s in constants %}
        any_value(constant) FILTER (WHERE class_index = {{ s.class_index }}) AS {{ s.alias }}{{ "," if not loop.last }}
{% endfor %}
    FROM (
        {{ family.class_constant(t) | trim }}
    ) AS __sqlnb_k (class_index, constant)
) AS __sqlnb_constants
CROSS JOIN (
    SELECT
{% for s in lists %}
        list({{ ('__sqlnb_v' ~ s.position) | ident }} ORDER BY f.feature_index) FILTER (WHERE class_index = {{ s.class_index }}) AS {{ s.alias }}{{ "," if not loop.last }}
{% endfor %}
    FROM (
        {{ family.read_params(t) | trim }}
    ) AS __sqlnb_r (class_index, feature{% for n in parameters %}, {{ ('__sqlnb_v' ~ loop.index0) | ident }}{% endfor %})
    JOIN {{ t.features }} AS f USING (feature)
) AS __sqlnb_lists;
