"""limit() after sort(): a constant count reads no column; the sort keys still apply."""
from frame_tables import orders
from prism_lineage.frame import col

plan = orders.select("order_id", "amount").sort(col("amount").desc()).limit(3)
