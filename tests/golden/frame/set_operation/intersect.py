"""intersect(): the values are in both inputs, so both are value sources."""
from frame_tables import customers, orders

plan = customers.select("customer_id").intersect(orders.select("customer_id"), all=True)
