"""union_all(): each output column takes its value from the column in the same position of
both inputs."""
from frame_tables import customers, orders
from prism_lineage.frame import col

plan = orders.select("customer_id", col("status").alias("label")).union_all(
    customers.select("customer_id", col("country").alias("label")))
