-- The distinct classes of a source (at most {{ limit | comment }}), in sorted order.
SELECT DISTINCT {{ target }} FROM {{ source }} WHERE {{ target }} IS NOT NULL ORDER BY 1 LIMIT {{ limit | lit }}
