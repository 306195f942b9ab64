{#- Free a statement planned by score/prepare.sql. -#}
DEALLOCATE PREPARE {{ name | ident }}
