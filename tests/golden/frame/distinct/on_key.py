"""distinct(key) (SQL's DISTINCT ON): one row per key, grouping lineage from the key."""
from frame_tables import orders

plan = orders.select("customer_id", "order_id").distinct("customer_id")
