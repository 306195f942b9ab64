{#- The rows of Parquet files, from their footers (no row is read): what "auto" scoring
    asks of a Parquet source before choosing its statement. -#}
{% from 'families/common.sql' import list_of %}
SELECT sum(num_rows) FROM parquet_file_metadata({{ list_of(paths) }})
