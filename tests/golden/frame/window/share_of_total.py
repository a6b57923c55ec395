"""An expression over a window: amount / SUM(amount) OVER (PARTITION BY customer_id) reads
amount as an expression and through the window."""
import prism_lineage.frame.functions as F
from frame_tables import orders
from prism_lineage.frame import col

plan = orders.select("order_id", (col("amount") / F.sum("amount").over(partition_by="customer_id")).alias("share"))
