-- The parameter view of one part ({{ family_name }}) of mixed model {{ model | lit }}.
{% import family_template as family %}
{{ family.feature_params(t, p) }}
