-- Labelled customers, one partition (`day`) per day of data, days 1 .. var('last_day').
-- Generated here so the example needs no download; in a real project this is a staging
-- model over a source. Every fifth customer is held out of training to test the model.
with base as (
    select
        d.day,
        d.day * 10000 + r.n as customer_id,
        {{ uniform('d.day * 10000 + r.n', 'churn') }} < 0.3 as churns
    from range(1, {{ var('last_day') }} + 1) as d(day),
         range(500) as r(n)
)
select
    customer_id,
    day,
    customer_id % 5 = 0 as holdout,
    case
        when {{ uniform('customer_id', 'plan') }} < (case when churns then 0.6 else 0.25 end)
            then 'basic'
        when {{ uniform('customer_id', 'plan2') }} < 0.5 then 'plus'
        else 'pro'
    end as plan,
    greatest(0.0, case when churns then {{ normal('customer_id', 'tenure', 10, 8) }}
                                   else {{ normal('customer_id', 'tenure', 30, 12) }} end)
        as tenure_months,
    case when churns then {{ normal('customer_id', 'spend', 62, 15) }}
                     else {{ normal('customer_id', 'spend', 50, 15) }} end as monthly_spend,
    cast(floor({{ uniform('customer_id', 'calls') }} * case when churns then 7 else 3 end)
         as integer) as support_calls,
    case when churns then 'yes' else 'no' end as churned
from base
