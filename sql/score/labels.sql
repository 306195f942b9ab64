{#- The model's class labels in class order, one row each, typed as the scoring statements
    type their prediction (`classes[i].label`, a literal of the target's type): what a
    prediction computed outside DuckDB takes its values from (scoring.prepared_scores). -#}
SELECT unnest([{% for c in classes %}{{ c.label }}{{ ", " if not loop.last }}{% endfor %}]) AS {{ prediction }}
