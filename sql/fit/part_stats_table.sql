-- The statistics table of one part ({{ family_name | comment }}) of mixed model {{ model | comment }}.
{% import family_template as family %}
{{ family.stats_table(t, class_type) }}
