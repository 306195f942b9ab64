-- depends_on: {{ ref('churn_training') }}
{{ config(materialized='view') }}
-- The expected churn per plan. A view: DuckDB scores the customers each time it is read,
-- so it always uses the model as it is now, refitted or not. scored_customers, a table,
-- keeps the scores of the model at the time dbt built it.
select
    plan,
    count(*) as customers,
    avg({{ sqlnb_proba('churn', 'c', 'yes') }}) as expected_churn_rate,
    avg(case when churned = 'yes' then 1.0 else 0.0 end) as observed_churn_rate
from {{ ref('customers') }} as c
group by plan
