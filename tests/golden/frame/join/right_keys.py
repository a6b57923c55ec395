"""A right join on left_on/right_on: both key columns stay, each from its side."""
from frame_tables import customers, orders

plan = orders.select("order_id", "customer_id").join(customers.select("customer_id", "email"),
                                                      left_on="customer_id", right_on="customer_id", how="right")
