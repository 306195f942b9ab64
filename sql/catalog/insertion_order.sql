SELECT current_setting('preserve_insertion_order')
