"""Measures: count() reads no column; a FILTER'ed measure gets control lineage from its
condition (that measure only); an expression over measures reads their inputs."""
import prism_lineage.frame.functions as F
from frame_tables import orders
from prism_lineage.frame import col

plan = orders.group_by("customer_id").agg(
    F.count().alias("orders"),
    F.sum("amount").filter(col("status") == "paid").alias("paid"),
    (F.max("amount") - F.min("amount")).alias("spread"),
    F.count_distinct("status").alias("statuses"),
)
