"""distinct(): duplicates collapse, values are unchanged; which rows remain depends on every
column compared (grouping lineage from each, as GROUP BY over them)."""
from frame_tables import orders

plan = orders.select("customer_id", "status").distinct()
