-- The floor of one small partial_fit: the cheapest statement that computes a batch's
-- per-class count, sum and sum of squares of each feature and adds them to a statistics
-- table (no checks, no shift, no pairwise update, no metadata), planned once.
INSERT INTO {{ table | ident }}
SELECT
    {{ target | ident }} AS class,
    unnest([{% for c in columns %}{{ c | lit }}{{ ", " if not loop.last }}{% endfor %}]) AS feature,
    count(*) AS n,
    unnest([{% for c in columns %}sum({{ c | ident }}){{ ", " if not loop.last }}{% endfor %}]) AS s1,
    unnest([{% for c in columns %}sum({{ c | ident }} * {{ c | ident }}){{ ", " if not loop.last }}{% endfor %}]) AS s2
FROM {{ source | ident }}
GROUP BY {{ target | ident }}
ON CONFLICT (class, feature) DO UPDATE SET
    n = {{ table | ident }}.n + excluded.n,
    s1 = {{ table | ident }}.s1 + excluded.s1,
    s2 = {{ table | ident }}.s2 + excluded.s2
