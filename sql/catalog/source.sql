{#- The FROM-clause fragment for a source: files read in place, or a named relation. -#}
{% from 'families/common.sql' import list_of %}
{% if paths %}{{ reader }}({% if paths | length == 1 %}{{ paths[0] | lit }}{% else %}{{ list_of(paths) }}{% endif %}){% else %}{{ name | qualified }}{% endif %}
