-- Problems in the merged statistics (NaN or infinite moments, …), one row each.
{% import family_template as family %}
{{ family.checks(t, features) }}
