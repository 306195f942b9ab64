{#- A class's joint log-likelihood over one row's features as a list, the parameters read
    from list-valued expressions: `c.scale`, `c.target`, `c.weights`, `c.fallback`,
    `c.constant`, `c.full_constant` are SQL (a bound parameter `$n` in score/score_arrays.sql, a
    field of a parameter-table row in the scoring macros). `x` is the row's list (for the
    Gaussian, already centred on the model's shift), `lgamma` the sum of lgamma(x + 1)
    (Poisson only). -#}
{#- `raw` is the fast form (a list function over the whole row), used when no feature is
    missing; `careful` treats each missing value as the model's `missing` setting says. -#}
{#- list_dot_product refuses a list holding NULL even where the CASE around `raw` discards
    its result (DuckDB evaluates it for the whole chunk, and moves or folds a CASE put
    inside it), so its list has the missing values as 0: what the CASE keeps is unchanged. -#}
{#- kind 'expanded' (score/score_arrays.sql only) is the Gaussian as two native inner products
    over `<x>_square` (x'^2) and `<x>` (x'): no lambda reads a class's parameters (DuckDB
    would copy them for every row). -#}
{% macro raw(c, kind, x, lgamma) -%}
{% if kind == 'expanded' -%}
{{ c.constant }} - list_inner_product({{ x }}_square, {{ c.square }}) + list_inner_product({{ x }}_zero, {{ c.linear }})
{%- elif kind == 'distance' -%}
{{ c.constant }} - list_distance(list_transform({{ x }}, lambda v, i: v * {{ c.scale }}[i]), {{ c.target }}) ** 2
{%- elif kind == 'counts' -%}
{{ c.constant }} + list_dot_product(list_transform({{ x }}, lambda v: coalesce(v, 0)), {{ c.weights }}) - {{ lgamma }}
{%- else -%}
{{ c.constant }} + list_dot_product(list_transform({{ x }}, lambda v: coalesce(v, 0)), {{ c.weights }})
{%- endif %}
{%- endmacro %}
{% macro careful(c, kind, x, missing, names) -%}
{% if missing == 'error' -%}
error('missing value (NULL or NaN) in feature ' || {{ names }}[list_position(list_transform({{ x }}, lambda v: v IS NULL), true)])
{%- elif kind == 'distance' -%}
{{ c.full_constant }} + list_sum(list_transform({{ x }}, lambda v, i: coalesce(-((v * {{ c.scale }}[i] - {{ c.target }}[i]) ** 2), {{ c.fallback }}[i])))
{%- elif kind == 'counts' -%}
{{ c.full_constant }} + list_sum(list_transform({{ x }}, lambda v, i: coalesce(v * {{ c.weights }}[i] - {{ c.fallback }}[i] - lgamma(v + 1), 0)))
{%- else -%}
{{ c.full_constant }} + list_sum(list_transform({{ x }}, lambda v, i: coalesce(v * {{ c.weights }}[i], {{ c.fallback }}[i])))
{%- endif %}
{%- endmacro %}
{#- The row's features in the model's order, as a DOUBLE list: `columns` are SQL
    expressions, `double` says which are DOUBLE already (or `values`, the list itself:
    `row_cast`'s). A NaN is missing (one test in a lambda over the list, spelt
    isfinite/isinf as in families/common.sql's `num`); Bernoulli's `binarize` threshold
    applies last. -#}
{% macro row_values(features, any_float, binarize, values=none) -%}
{% if values is none %}
{% set values -%}
[{% for f in features %}{% if f.double %}{{ f.column }}{% else %}CAST({{ f.column }} AS DOUBLE){% endif %}{{ ", " if not loop.last }}{% endfor %}]
{%- endset %}
{% endif %}
{% if any_float %}
{% set values = 'list_transform(' ~ values ~ ', lambda v: CASE WHEN isfinite(v) OR isinf(v) THEN v END)' %}
{% endif %}
{% if binarize is not none %}
{% set values = 'list_transform(' ~ values ~ ', lambda v: CAST(v > ' ~ (binarize | lit) ~ ' AS DOUBLE))' %}
{% endif %}
{{- values -}}
{%- endmacro %}
{#- score/score_arrays.sql's fast form, for a row without a missing value: `<x>` is the row's
    list, `<x>_square` its squares and `<x>_lgamma` its sum of lgamma(x + 1). -#}
{% macro fast(c, kind, x) -%}
{% if kind == 'expanded' -%}
{{ c.constant }} - list_inner_product({{ x }}_square, {{ c.square }}) + list_inner_product({{ x }}, {{ c.linear }})
{%- elif kind == 'counts' -%}
{{ c.constant }} + list_dot_product({{ x }}, {{ c.weights }}) - {{ x }}_lgamma
{%- elif kind == 'distance' -%}
{{ raw(c, kind, x, none) }}
{%- else -%}
{{ c.constant }} + list_dot_product({{ x }}, {{ c.weights }})
{%- endif %}
{%- endmacro %}
{#- The row as a DOUBLE list in the model's feature order (score/score_arrays.sql,
    score/score_one_level.sql), centred on the Gaussian's shift, a missing value (NULL or NaN)
    as NaN: list functions refuse a list holding NULL, and a row holding a NaN takes the
    careful form, which reads the NaN as NULL. Bernoulli's `binarize` threshold applies
    last, a NaN first made NULL. `per_column` writes one expression per feature, `f.shift`
    its shift as a literal (cheap to run: a statement planned once pays for its size once);
    otherwise one lambda over the columns' list, `shift` the shifts as a list (short to
    plan, for a statement planned at each call, or a wide one). `nulls` false: the input
    holds no NULL, no coalesce is needed. -#}
{% macro row_list(features, binarize, shift, per_column, nulls=true) -%}
{% set nan = "'NaN'::DOUBLE" %}
{% set columns %}[{% for f in features %}{% if f.double %}{{ f.column }}{% else %}CAST({{ f.column }} AS DOUBLE){% endif %}{{ ", " if not loop.last }}{% endfor %}]{% endset %}
{% if binarize is not none and per_column -%}
[{% for f in features %}{% set v = f.column if f.double else 'CAST(' ~ f.column ~ ' AS DOUBLE)' %}{% if f.float %}{% set v = 'nullif(' ~ v ~ ', ' ~ nan ~ ')' %}{% endif %}coalesce(CAST({{ v }} > {{ binarize | lit }} AS DOUBLE), {{ nan }}){{ ", " if not loop.last }}{% endfor %}]
{%- elif binarize is not none -%}
list_transform({{ columns }}, lambda v: coalesce(CAST(nullif(v, {{ nan }}) > {{ binarize | lit }} AS DOUBLE), {{ nan }}))
{%- elif per_column -%}
[{% for f in features %}{% set v = f.column if f.double else 'CAST(' ~ f.column ~ ' AS DOUBLE)' %}{% if f.shift is not none %}{% set v = '(' ~ v ~ ' - ' ~ f.shift ~ ')' %}{% endif %}{% if nulls %}{% set v = 'coalesce(' ~ v ~ ', ' ~ nan ~ ')' %}{% endif %}{{ v }}{{ ", " if not loop.last }}{% endfor %}]
{%- elif shift -%}
list_transform({{ columns }}, lambda v, i: coalesce(v - {{ shift }}[i], {{ nan }}))
{%- else -%}
list_transform({{ columns }}, lambda v: coalesce(v, {{ nan }}))
{%- endif %}
{%- endmacro %}

{#- The classes' joint log-likelihoods as one list function over a weight matrix
    (`scoring.weight_matrix`): `weights` a constant of one row per class, `[constant] +
    joined` (or `+ careful`), `x` the row's DOUBLE list (a missing value NULL, with
    `careful`; none otherwise), `shift` the Gaussian's shift (a DOUBLE[] constant) or none.
    The row becomes `z = [1] + x' (+ x'^2, or + the sum of lgamma(x + 1)) (+ 1 where a
    value is missing, with `careful`)`, x' the row centred on the shift with a missing
    value as 0: each class's term is one inner product of its weights with `z`. -#}
{% macro matrix_joint(x, weights, shift, kind, careful) -%}
{% if shift is not none -%}
{% set centred = 'list_transform(' ~ x ~ ', lambda v, i: ' ~ ('coalesce(v - ' ~ shift ~ '[i], 0)' if careful else 'v - ' ~ shift ~ '[i]') ~ ')' %}
{%- elif careful -%}
{% set centred = 'list_transform(' ~ x ~ ', lambda v: coalesce(v, 0))' %}
{%- else -%}
{% set centred = x %}
{%- endif %}
{% set x0 = '__sqlnb_x0' %}
{% if kind == 'expanded' -%}
{% set z = 'list_concat([1.0], ' ~ x0 ~ ', list_transform(' ~ x0 ~ ', lambda v: v * v)' %}
{%- elif kind == 'counts' -%}
{% set z = 'list_concat([1.0], ' ~ x0 ~ ', [list_sum(list_transform(' ~ x0 ~ ', lambda v: lgamma(v + 1)))]' %}
{%- else -%}
{% set z = 'list_concat([1.0], ' ~ x0 %}
{%- endif %}
{% if careful %}{% set z = z ~ ', list_transform(' ~ x ~ ', lambda v: CAST(v IS NULL AS DOUBLE)))' %}{% else %}{% set z = z ~ ')' %}{% endif %}
list_transform([{{ centred }}], lambda {{ x0 }}: list_transform([{{ z }}], lambda __sqlnb_z: list_transform({{ weights }}, lambda __sqlnb_w: list_inner_product(__sqlnb_w, __sqlnb_z)))[1])[1]
{%- endmacro %}

{#- A macro's row `r` (a STRUCT of the scored relation's columns) as the DOUBLE list of the
    model's `features`, in their order, with no lambda over the row: the row cast to a
    STRUCT of the features (matched by name as DuckDB matches columns, each cast to
    DOUBLE), then to a MAP whose values are that list. A lambda over the row would copy
    every column of it (binding and running it cost half a one-row call); the cast gives
    a field the row lacks as NULL, which `row_has` refuses first. -#}
{% macro row_cast(r, features) -%}
map_values(CAST(CAST({{ r }} AS STRUCT({% for f in features %}{{ f.name | ident }} DOUBLE{{ ", " if not loop.last }}{% endfor %})) AS MAP(VARCHAR, DOUBLE)))
{%- endmacro %}

{#- Whether the macro's row `r` has a column of every feature (names compared without
    case, as `row_cast` matches them): from struct_keys(r) with `keys`, else from the row
    cast to a MAP, whose cast writes every value as text (see `row_checked`). -#}
{% macro row_has(r, features, keys=false) -%}
list_has_all(list_transform({% if keys %}struct_keys({{ r }}){% else %}map_keys(CAST({{ r }} AS MAP(VARCHAR, VARCHAR))){% endif %}, lambda k: lower(k)), [{% for f in features %}{{ f.name | lower | lit }}{{ ", " if not loop.last }}{% endfor %}])
{%- endmacro %}

{#- The macros' check that the row `r` has every feature, true or false: a row whose cast
    list holds no NULL has them all; the names of one that does (a missing value, or a
    missing column) are looked at. With `keys` (DuckDB 2.0.1, see Engine.macro_row_keys)
    they are struct_keys(r), shorter to plan than the row cast to a MAP of text. `values`:
    the row's cast list already named (a lambda's variable), else `row_cast` again. -#}
{% macro row_checked(r, features, keys=false, values=none) -%}
list_count({{ values if values is not none else row_cast(r, features) }}) = {{ features | length }} OR {{ row_has(r, features, keys) }}
{%- endmacro %}

{#- `matrix_joint`'s careful form read straight from `v`, a name (a lambda's variable) for
    the row's DOUBLE list in which a missing value is NULL or NaN: `x'`, its squares (or
    its sum of lgamma(x + 1)) and the missing flags are each one lambda over `v`, without
    a level that first makes NaN NULL or centres the row (a level of lambdas is planned at
    every macro call). `shift` (a DOUBLE[] constant or none) centres `v` first, in a level
    of its own (captured once). Each class's term is one inner product of its row of
    `weights` with `z = [1] + x' (+ x'^2, or + the sum of lgamma(x + 1)) + missing flags`. -#}
{% macro matrix_joint_flat(v, weights, shift, kind) -%}
{% if shift is not none -%}
list_transform([list_transform({{ v }}, lambda v, i: CASE WHEN isnan(v) IS NOT FALSE THEN NULL ELSE v - {{ shift }}[i] END)], lambda __sqlnb_x: {{ matrix_joint_flat('__sqlnb_x', weights, none, kind) }})[1]
{%- else -%}
{% set miss = 'isnan(q) IS NOT FALSE' %}
{% set x0 = 'list_transform(' ~ v ~ ', lambda q: CASE WHEN ' ~ miss ~ ' THEN 0.0 ELSE q END)' %}
{% set flags = 'list_transform(' ~ v ~ ', lambda q: CAST(' ~ miss ~ ' AS DOUBLE))' %}
{% if kind == 'expanded' -%}
{% set z = 'list_concat([1.0], ' ~ x0 ~ ', list_transform(' ~ v ~ ', lambda q: CASE WHEN ' ~ miss ~ ' THEN 0.0 ELSE q * q END), ' ~ flags ~ ')' %}
{%- elif kind == 'counts' -%}
{% set z = 'list_concat([1.0], ' ~ x0 ~ ', [list_sum(list_transform(' ~ v ~ ', lambda q: CASE WHEN ' ~ miss ~ ' THEN 0.0 ELSE lgamma(q + 1) END))], ' ~ flags ~ ')' %}
{%- else -%}
{% set z = 'list_concat([1.0], ' ~ x0 ~ ', ' ~ flags ~ ')' %}
{%- endif %}
list_transform([{{ z }}], lambda __sqlnb_z: list_transform({{ weights }}, lambda __sqlnb_w: list_inner_product(__sqlnb_w, __sqlnb_z)))[1]
{%- endif %}
{%- endmacro %}
