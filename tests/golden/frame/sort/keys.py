"""sort(): sort lineage from every key column to every output column."""
from frame_tables import orders
from prism_lineage.frame import col

plan = orders.select("order_id", "amount").sort(col("amount").desc(nulls_first=False), "order_id")
