"""A semi join keeps the left columns only; the match on the right side is join lineage."""
from frame_tables import customers, orders
from prism_lineage.frame import col

paid = orders.filter(col("status") == "paid")
plan = customers.select("customer_id", "name").join(paid, on=["customer_id"], how="semi")
