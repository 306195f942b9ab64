-- Problems in the merged statistics (NaN or infinite moments, …), one row each
-- (`quick`: the family's checks that read no parameter view, where it has them; a row
-- whose problem is 'recheck' then asks for the full checks, see Pipeline.refuse_problems).
{% import family_template as family %}
{% if quick is defined and quick and family.quick_checks is defined %}
{{ family.quick_checks(t, features, p) }}
{% else %}
{{ family.checks(t, features) }}
{% endif %}
