{#- Run a statement planned by score/prepare.sql: no parsing, binding or planning again. -#}
EXECUTE {{ name | ident }}
