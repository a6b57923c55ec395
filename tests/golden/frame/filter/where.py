"""filter(): every column gets control lineage from every column the condition reads, and no
value lineage from them."""
from frame_tables import orders
from prism_lineage.frame import col

plan = orders.filter((col("status") == "paid") & (col("amount") > 10)).select("order_id", "customer_id")
