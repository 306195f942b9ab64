{#- Free a statement planned by prepare.sql. -#}
DEALLOCATE PREPARE {{ name | ident }}
