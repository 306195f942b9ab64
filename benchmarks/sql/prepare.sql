-- A statement planned once, run again by EXECUTE {{ name }}.
PREPARE {{ name }} AS
{{ statement }};
