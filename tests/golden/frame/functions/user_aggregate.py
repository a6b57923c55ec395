"""A user aggregate (kind="aggregate") is a measure: aggregate lineage from its input."""
import prism_lineage.frame.functions as F
from frame_tables import orders

p90 = F.udf("p90", kind="aggregate")
plan = orders.group_by("customer_id").agg(p90("amount").alias("p90_amount"))
