-- The parameter view of one part ({{ family_name | comment }}) of mixed model {{ model | comment }}.
{% import family_template as family %}
{{ family.feature_params(t, p) }}
