{#- Run a statement planned by prepare.sql: no parsing, binding or planning again. -#}
EXECUTE {{ name | ident }}
