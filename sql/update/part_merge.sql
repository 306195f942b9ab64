-- Fold one part's batch ({{ family_name | comment }}) into mixed model {{ model | comment }}; the class
-- totals were already merged from the first part's batch.
{% import family_template as family %}
{{ family.merge(t, features, weighted, sign | default(1)) }}
