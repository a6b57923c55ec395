"""rollup(): grouping sets (customer_id, status), (customer_id), (); both keys group."""
import prism_lineage.frame.functions as F
from frame_tables import orders

plan = orders.rollup("customer_id", "status").agg(F.sum("amount").alias("total"))
