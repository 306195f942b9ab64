-- Features whose batch sums cancelled too much around their shift (a rescan fixes them).
{% import family_template as family %}
{{ family.cancelling(t, features, weighted) }}
