"""A cross join has no condition: each column has its own value lineage only."""
from frame_tables import customers, orders

plan = orders.select("order_id").cross_join(customers.select("country"))
