-- depends_on: {{ ref('churn_training') }}
-- Every customer scored by the sqlnb model `churn`, through the macros its fit created.
-- The comment above orders this model after the training: dbt cannot see that the
-- macros come from churn_training.
select
    c.*,
    {{ sqlnb_predict('churn', 'c') }} as predicted_churn,
    {{ sqlnb_proba('churn', 'c', 'yes') }} as churn_probability
from {{ ref('customers') }} as c
