"""distinct(): duplicates collapse, values are unchanged."""
from frame_tables import orders

plan = orders.select("customer_id", "status").distinct()
