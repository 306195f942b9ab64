{#- The rows of one group of a source, as a FROM-clause fragment: the source a group's
    text model is fitted on. `values` are the group's values as SQL literals. -#}
(
    SELECT *
    FROM {{ source }}
    WHERE {% for g in groups %}{{ g.column }} = {{ values[loop.index0] }}{{ " AND " if not loop.last }}{% endfor %}

) AS __sqlnb_group_rows
