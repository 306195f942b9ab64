-- The statistics table of one part ({{ family_name }}) of mixed model {{ model | lit }}.
{% import family_template as family %}
{{ family.stats_table(t, class_type) }}
