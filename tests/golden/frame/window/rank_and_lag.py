"""rank() reads no value (window lineage only); lag() takes its input's value, its offset is a
constant that reads nothing."""
import prism_lineage.frame.functions as F
from frame_tables import orders
from prism_lineage.frame import col

plan = orders.with_columns(
    F.rank().over(partition_by="customer_id", order_by=col("amount").desc()).alias("amount_rank"),
    F.lag("amount", 1).over(partition_by="customer_id", order_by="placed_at").alias("previous_amount"),
).select("order_id", "amount_rank", "previous_amount")
