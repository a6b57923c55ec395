"""join(on=[names]) is SQL's USING: the key appears once, first, with the left side's value
(a left join); then the other left columns, then the other right columns."""
from frame_tables import customers, orders

plan = orders.select("order_id", "customer_id").join(customers.select("customer_id", "country"),
                                                      on=["customer_id"], how="left")
