"""Two filters in a row: both conditions control every row."""
from frame_tables import orders
from prism_lineage.frame import col

plan = orders.select("order_id", "status", "placed_at").filter(col("status").isin("paid", "shipped")).filter(
    col("placed_at").is_not_null())
