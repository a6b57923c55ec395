"""An ordered aggregate: the ORDER BY column is sort lineage of that measure."""
import prism_lineage.frame.functions as F
from frame_tables import orders
from prism_lineage.frame import col

plan = orders.group_by("customer_id").agg(F.array_agg("order_id", order_by=col("placed_at").desc()).alias("ids"))
