"""A filter on an aggregate's result (SQL's HAVING): every column gets control lineage from
the input of the measure the condition reads."""
import prism_lineage.frame.functions as F
from frame_tables import orders
from prism_lineage.frame import col

plan = orders.group_by("customer_id").agg(F.count().alias("orders"), F.sum("amount").alias("total")).filter(
    col("total") > 100)
