-- The parameters the explain macro of model {{ model | comment }} reads: one row, a column
-- per class constant and per class, feature and scoring parameter (the macro's terms name
-- these columns, see sql/reports/explain.sql). A view over the parameter views, so it is
-- current after every write: one that keeps the classes, features and hyperparameters
-- leaves the view and the macro as they are.
{# `constants`: per class its `class_index` and column `alias`; `terms`: per class, feature
   and parameter its `class_index`, `feature` (name), the parameter's `position` among
   `parameters` (the family's scoring parameters, the columns of its `read_params` after
   the class index and the feature) and its `alias`. #}
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
{% for s in terms %}
        any_value({{ ('__sqlnb_v' ~ s.position) | ident }}) FILTER (WHERE class_index = {{ s.class_index }} AND feature = {{ s.feature | lit }}) AS {{ s.alias }}{{ "," if not loop.last }}
{% endfor %}
    FROM (
        {{ family.read_params(t) | trim }}
    ) AS __sqlnb_r (class_index, feature{% for n in parameters %}, {{ ('__sqlnb_v' ~ loop.index0) | ident }}{% endfor %})
) AS __sqlnb_terms;
