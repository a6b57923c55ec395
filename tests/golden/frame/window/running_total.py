"""A windowed sum with a frame: value lineage (window) from its input; window lineage from the
partition, order and input columns."""
import prism_lineage.frame.functions as F
from frame_tables import orders

plan = orders.select("order_id", F.sum("amount").over(partition_by="customer_id", order_by="placed_at",
                                                       frame=F.rows_between(F.unbounded_preceding(), F.current_row()))
                     .alias("running_total"))
