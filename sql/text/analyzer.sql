{#-
  The text analyzer as SQL expressions: what scikit-learn's CountVectorizer does in
  Python (lowercase, find tokens with a regular expression, drop stop words, join
  n-grams with a space), spelled with list functions so it runs per row, in parallel.
  The list shapes are dialect macros (sql/dialects/: DuckDB's lists and lambdas, Spark's
  arrays and higher-order functions) and the pattern goes through the dialect's `regex`
  filter (Java's syntax on Spark). `a` is the analyzer's settings, from sqlnb/text.py.
-#}

{# The list of tokens of one document (NULL documents give an empty list). #}
{% macro tokens(column, a) -%}
{% set condition %}token IS NOT NULL{% if a.stop_words %} AND NOT {{ sql.in_text_list('token', a.stop_words | map('lit') | list) }}{% endif %}{% endset %}
{{ sql.list_filter("regexp_extract_all(" ~ (("lower(" ~ column ~ ")") if a.lowercase else column) ~ ", " ~ (a.pattern | regex | lit) ~ ", " ~ (a.group | lit) ~ ")", 'token', condition) }}
{%- endmacro %}

{# A document's space-separated chunks, as written: see sqlnb.text.splits_at_spaces. #}
{% macro chunks(column, a) -%}
{{ sql.split_spaces(column) }}
{%- endmacro %}

{# The tokens of one distinct chunk. Lowercasing is per character, so lowercasing each
   distinct chunk gives the tokens lowercasing the whole document would, for far less
   work than lowercasing every document. #}
{% macro chunk_tokens(chunk, a) -%}
{{ tokens(chunk, a) }}
{%- endmacro %}

{# The terms of one document: its n-grams for n in ngram_range, from a token list (see
   the dialect's `ngrams`: on DuckDB the list zipped with its shifted copies, so long
   documents cost linear time and memory). #}
{% macro terms(tokens, a) -%}
{% if a.ngram_min == 1 and a.ngram_max == 1 %}
{{ tokens }}
{%- else %}
{% set ns = namespace(lists=[]) %}
{% for n in range(a.ngram_min, a.ngram_max + 1) %}
{% set ns.lists = ns.lists + [tokens if n == 1 else sql.ngrams(tokens, n)] %}
{% endfor %}
{{ sql.concat_lists(ns.lists) }}
{%- endif %}
{%- endmacro %}

{# One row per document of `source` and distinct term in it: (doc, term, count), the
   document numbered by the column `doc`, its text read from `column`. #}
{% macro document_terms(source, doc, column, a) -%}
SELECT {{ doc }} AS doc, cell.key AS term, cell.value AS count
    FROM (
        SELECT {{ doc }}, {{ sql.unnest(sql.histogram(terms('tokens', a))) }} AS cell
        FROM (
            SELECT {{ doc }}, {{ tokens(column, a) }} AS tokens
            FROM {{ source }}
        )
    )
{%- endmacro %}

{# A document-term weight before idf: the count, 1 when binary, or 1 + ln(count). #}
{% macro tf(count, a) -%}
{% if a.binary %}1.0{% elif a.sublinear_tf %}(1.0 + ln({{ count }})){% else %}CAST({{ count }} AS DOUBLE){% endif %}
{%- endmacro %}

{# Inverse document frequency from a term's df and the number of fitted documents. #}
{% macro idf(df, n_documents, a) -%}
{% if not a.use_idf %}1.0{% elif a.smooth_idf %}ln((CAST({{ n_documents }} AS DOUBLE) + 1) / ({{ df }} + 1)) + 1{% else %}ln(CAST({{ n_documents }} AS DOUBLE) / {{ df }}) + 1{% endif %}
{%- endmacro %}

{# A document's norm over its (known) terms' weights `x`, as a window per document (over
   every row when `doc` is none: the rows of one document). #}
{% macro normalised(x, doc, a) -%}
{% set window %}{% if doc %}PARTITION BY {{ doc }}{% endif %}{% endset %}
{% if a.norm == 'l2' %}
{{ x }} / sqrt(sum({{ x }} * {{ x }}) OVER ({{ window }}))
{%- elif a.norm == 'l1' %}
{{ x }} / sum(abs({{ x }})) OVER ({{ window }})
{%- else %}
{{ x }}
{%- endif %}
{%- endmacro %}
