"""A condition over a window function (SQL's QUALIFY): the rows kept depend on what shapes the
window, so every column gets control lineage from the partition and order columns."""
import prism_lineage.frame.functions as F
from frame_tables import orders
from prism_lineage.frame import col

latest = F.row_number().over(partition_by="customer_id", order_by=col("placed_at").desc())
plan = orders.filter(latest == 1).select("order_id", "customer_id", "amount")
