"""An inner join on a predicate: join lineage from both key columns to every output column;
each column keeps its value lineage from its own side."""
from frame_tables import customers, orders
from prism_lineage.frame import col

plan = orders.alias("o").join(customers.alias("c"), on=col("o.customer_id") == col("c.customer_id")).select(
    col("o.order_id"), col("c.name"))
