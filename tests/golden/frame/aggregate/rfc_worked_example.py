"""The RFC's guide-level example, as the RFC writes it: total_amount has value lineage from
orders.amount, grouping lineage from orders.customer_id and control lineage from orders.status."""
import prism_lineage.frame.functions as F
from frame_tables import orders
from prism_lineage.frame import col

summary = (orders.filter(col("status") == "paid")
                 .group_by([col("customer_id")])
                 .agg([F.sum(col("amount")).alias("total_amount")]))
plan = summary
