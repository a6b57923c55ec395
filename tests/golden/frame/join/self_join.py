"""A self-join: each side is its own scan, told apart by aliases; both sides read the same base
columns."""
from frame_tables import orders
from prism_lineage.frame import col

earlier, later = orders.alias("earlier"), orders.alias("later")
plan = earlier.join(later, on=(col("earlier.customer_id") == col("later.customer_id"))
                    & (col("earlier.placed_at") < col("later.placed_at"))).select(
    col("earlier.order_id").alias("first_order"), col("later.order_id").alias("next_order"))
