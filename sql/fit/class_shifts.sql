-- Per-class shifts for a rescan, taken from the batch just summed.
{% import family_template as family %}
{{ family.class_shifts(t, features, weighted) }}
