"""select(): a bare column is identity; an expression reads every column in it; a constant
reads none."""
from frame_tables import orders
from prism_lineage.frame import col, lit

plan = orders.select(
    col("order_id"),
    (col("amount") * 1.2).alias("gross"),
    (col("status") + col("order_id").cast("varchar")).alias("label"),
    lit("EUR").alias("currency"),
)
