{#- Plan `statement` once on this connection, to run again by name (score/execute_prepared.sql)
    on each new input of the same shape; score/deallocate.sql frees it. -#}
PREPARE {{ name | ident }} AS
{{ statement }}
