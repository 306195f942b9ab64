-- The parameters of every candidate of the cross-validation of model {{ model | comment }}
-- at once: each candidate's parameter views (named after it) over the same held-out
-- statistics, then, in one statement each, the classes, the constants and the terms of
-- them all (and their log priors, for a mixed model's parts), the candidate first.
{% import family_template as family %}
{% if what == 'views' %}
{% for c in candidates %}
{% with t = c.t, p = c.p, priors = c.priors, fit_prior = c.fit_prior %}
{% include 'score/params.sql' %}
{% endwith %}
{% endfor %}
{% elif what == 'classes' %}
{% import 'catalog/read_group_classes.sql' as group_classes %}
{{ group_classes.classes(candidates[0].t) }}
{% else %}
{% for c in candidates %}
SELECT {{ loop.index0 | lit }} AS __sqlnb_candidate, *
FROM (
{% if what == 'constants' %}
{{ family.class_constant(c.t) }}
{% elif what == 'priors' %}
SELECT class_index, log_prior FROM {{ c.t.class_params }}
{% else %}
{{ family.read_params(c.t) }}
{% endif %}
)
{{ "UNION ALL" if not loop.last }}
{% endfor %}
ORDER BY 1, 2{{ ", 3" if what == 'terms' }}
{% endif %}
