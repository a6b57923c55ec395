"""A full join on names: the merged key is COALESCE(left, right), so it reads both sides."""
from frame_tables import customers, orders

plan = orders.select("customer_id", "amount").join(customers.select("customer_id", "name"), on="customer_id",
                                                    how="full")
