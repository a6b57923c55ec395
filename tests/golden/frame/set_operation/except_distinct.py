"""except_(): values come from the left input; the right input's columns only remove rows
(control lineage); without all=True duplicates collapse (grouping lineage from the output
column)."""
from frame_tables import customers, orders
from prism_lineage.frame import col

plan = customers.select("customer_id").except_(orders.filter(col("status") == "paid").select("customer_id"))
