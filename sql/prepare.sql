{#- Plan `statement` once on this connection, to run again by name (execute_prepared.sql)
    on each new input of the same shape; deallocate.sql frees it. -#}
PREPARE {{ name | ident }} AS
{{ statement }}
