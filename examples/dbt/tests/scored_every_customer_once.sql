-- Every customer is scored exactly once, with a probability between 0 and 1.
select customer_id, count(*) as times_scored, min(churn_probability) as p
from {{ ref('scored_customers') }}
group by customer_id
having count(*) <> 1 or min(churn_probability) < 0 or max(churn_probability) > 1
union all
select null, count(*), null
from {{ ref('customers') }}
where customer_id not in (select customer_id from {{ ref('scored_customers') }})
having count(*) > 0
