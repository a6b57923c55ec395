"""agg() without group_by: one group of every row, no grouping lineage."""
import prism_lineage.frame.functions as F
from frame_tables import orders

plan = orders.agg(F.count().alias("orders"), F.avg("amount").alias("mean_amount"))
